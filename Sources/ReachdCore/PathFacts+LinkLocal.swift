extension PathFacts {
    /// The facts with an IPv4 path whose only source is link-local (169.254/16: the IPv4LL
    /// fallback when DHCP gets no answer) counted as what it is, a path to the link: routers do
    /// not forward such a source, so it reaches no Internet. Pure.
    ///
    /// | fact | with an IPv4LL-only IPv4 path |
    /// |---|---|
    /// | `SupportsIPv4` | false |
    /// | `Gateways` | without the IPv4 path's |
    /// | `SupportsDNS` | false unless IPv6 has a usable path |
    /// | `AvailableInterfaces` | its link not `internet` (unless IPv6's path leaves by it), listed after those that are |
    ///
    /// ```swift
    /// facts.excludingLinkLocalOnly(ipv4: pathWithSource169254, ipv6: .none).supportsIPv4   // false
    /// ```
    public func excludingLinkLocalOnly(ipv4: KernelPath, ipv6: KernelPath) -> PathFacts {
        guard ipv4.isLinkLocalOnly else { return self }
        var facts = self
        facts.supportsIPv4 = false
        if let gateway = ipv4.gateway, let index = facts.gateways.firstIndex(of: gateway) {
            facts.gateways.remove(at: index)
        }
        if !ipv6.isUsable {
            facts.supportsDNS = false
            facts.underlyingInterfaceType = nil
        }
        let ipv6Interface = ipv6.isUsable ? ipv6.route?.outgoingInterface : nil
        if let name = ipv4.route?.outgoingInterface, name != ipv6Interface {
            let marked = availableInterfaces.map { interface in
                var interface = interface
                if interface.name == name { interface.hasInternetPath = false }
                return interface
            }
            facts.availableInterfaces = marked.filter(\.hasInternetPath) + marked.filter { !$0.hasInternetPath }
        }
        return facts
    }
}
