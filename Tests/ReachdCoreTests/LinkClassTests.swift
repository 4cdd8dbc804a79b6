import ReachdCore
import Testing

/// docs/mapping.md "Which links can carry the path": the classes of kernel links, first
/// match wins, from kernel facts only.
@Suite("Kernel facts → link class")
struct LinkClassTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let situation: String
        /// The link classified, then the other links on the machine (its ports and lower links).
        let links: [LinkFacts]
        let carriesPath: Bool
        let linkClass: LinkClass
        /// InterfaceType of a path over the link.
        let interfaceType: InterfaceType
        var testDescription: String { situation }

        init(_ situation: String, _ links: [LinkFacts], onPath carriesPath: Bool = false,
             _ linkClass: LinkClass, _ interfaceType: InterfaceType) {
            self.situation = situation
            self.links = links
            self.carriesPath = carriesPath
            self.linkClass = linkClass
            self.interfaceType = interfaceType
        }
    }

    typealias K = KernelLinks

    static let rows: [Row] = [
        // C0 loopback
        Row("lo", [K.lo], .loopback, .other),
        Row("lo, even on the path", [K.lo], onPath: true, .loopback, .other),
        Row("type 772 without IFF_LOOPBACK", [LinkFacts(name: "lo", arphrdType: 772)], .loopback, .other),
        // C1 sink
        Row("dummy", [K.software("dummy0", kind: .dummy)], .sink, .other),
        Row("dummy on the path (the Cockpit trick)", [K.software("d0", kind: .dummy)], onPath: true, .sink, .other),
        Row("ifb", [K.software("ifb0", kind: .ifb)], .sink, .other),
        Row("nlmon", [K.software("nlmon0", kind: .nlmon, type: 824)], .sink, .other),
        // C2 port
        Row("a NIC enslaved to a bond", [K.nic("eth0", enslaved: true)], .port, .ethernet),
        Row("a NIC bridged into br0", [K.nic("eth0", bridged: true)], .port, .ethernet),
        Row("a container's veth in docker0", [K.veth("veth1a2b", bridged: true)], .port, .ethernet),
        Row("a VM's tap in virbr0", [K.tap("vnet0", bridged: true)], .port, .ethernet),
        Row("a port with brport/ but no master link", [LinkFacts(name: "p0", arphrdType: 1, kind: .veth, isBridgePort: true)],
            .port, .ethernet),
        // C6 tunnel
        Row("tun with IFF_TUN", [K.tun("tun0")], .tunnel, .vpn),
        Row("tun with IFF_TUN on the path", [K.tun("tun0")], onPath: true, .tunnel, .vpn),
        Row("wireguard", [K.software("wg0", kind: .wireguard, type: 65534)], .tunnel, .vpn),
        Row("gre", [K.software("gre1", kind: .gre, type: 778)], .tunnel, .vpn),
        Row("ipip", [K.software("tunl1", kind: .ipip, type: 768)], .tunnel, .vpn),
        Row("sit", [K.software("sit1", kind: .sit, type: 776)], .tunnel, .vpn),
        Row("ip6tnl", [K.software("ip6tnl1", kind: .ip6tnl, type: 769)], .tunnel, .vpn),
        Row("vti", [K.software("vti1", kind: .vti, type: 768)], .tunnel, .vpn),
        Row("xfrm", [K.software("ipsec0", kind: .xfrm, type: 65534)], .tunnel, .vpn),
        Row("vxlan", [K.software("vxlan0", kind: .vxlan)], .tunnel, .vpn),
        Row("geneve", [K.software("gnv0", kind: .geneve)], .tunnel, .vpn),
        Row("gretap", [K.software("gretap1", kind: .gretap)], .tunnel, .vpn),
        Row("no link layer, no kind, no bus", [LinkFacts(name: "t0", arphrdType: 65534)], .tunnel, .vpn),
        Row("type 778 (ipgre), no kind", [LinkFacts(name: "t1", arphrdType: 778)], .tunnel, .vpn),
        // C6p PPP
        Row("ppp", [K.ppp0], .ppp, .vpn),
        Row("ppp without a kind", [LinkFacts(name: "ppp0", arphrdType: 512)], .ppp, .vpn),
        // C5 physical
        Row("a real NIC", [K.nic("eth0")], .physical, .ethernet),
        Row("a real NIC on the path", [K.nic("enp3s0")], onPath: true, .physical, .ethernet),
        Row("Wi-Fi", [K.wlan0], .physical, .wifi),
        Row("a raw-IP modem (type 65534 on USB)", [K.wwan0], .physical, .wwan),
        Row("a bond of two NICs", [K.stacked("bond0", kind: .bond, on: ["eth0", "eth1"]),
                                   K.nic("eth0", enslaved: true), K.nic("eth1", enslaved: true)], .physical, .ethernet),
        Row("a team of a NIC and Wi-Fi", [K.stacked("team0", kind: .team, on: ["wlan0"]), K.wlan0], .physical, .wifi),
        Row("a VLAN on a NIC", [K.stacked("eth0.10", kind: .vlan, on: ["eth0"]), K.nic("eth0")], .physical, .ethernet),
        Row("a macvlan on a NIC", [K.stacked("mv0", kind: .macvlan, on: ["eth0"]), K.nic("eth0")], .physical, .ethernet),
        Row("an ipvlan on Wi-Fi", [K.stacked("ipv0", kind: .ipvlan, on: ["wlan0"]), K.wlan0], .physical, .wifi),
        Row("br0 bridging eth0 on a VM host", [K.bridge("br0", ports: ["eth0", "vnet0"]),
                                               K.nic("eth0", bridged: true), K.tap("vnet0", bridged: true)],
            .physical, .ethernet),
        Row("br0 over a bond over NICs", [K.bridge("br0", ports: ["bond0"]),
                                          K.stacked("bond0", kind: .bond, on: ["eth0"], enslaved: true),
                                          K.nic("eth0", enslaved: true)], .physical, .ethernet),
        Row("a VLAN on br0 over eth0", [K.stacked("br0.5", kind: .vlan, on: ["br0"]),
                                        K.bridge("br0", ports: ["eth0"]), K.nic("eth0", bridged: true)],
            .physical, .ethernet),
        // C5r routed virtual
        Row("the container's veth on the path", [K.veth("eth0")], onPath: true, .routedVirtual, .ethernet),
        Row("a tap on the path", [K.tap("tap0")], onPath: true, .routedVirtual, .ethernet),
        Row("docker0 on the path", [K.bridge("docker0", ports: ["veth1a2b"]), K.veth("veth1a2b", bridged: true)],
            onPath: true, .routedVirtual, .other),
        Row("br0 over the client's veth in a test namespace", [K.bridge("br0", ports: ["rdc"]),
                                                               K.veth("rdc", bridged: true)],
            onPath: true, .routedVirtual, .other),
        Row("vboxnet0 on the path", [K.vboxnet0], onPath: true, .routedVirtual, .other),
        // C3 host-virtual bridge
        Row("docker0 with only veth ports", [K.bridge("docker0", ports: ["veth1a2b", "veth3c4d"]),
                                             K.veth("veth1a2b", bridged: true), K.veth("veth3c4d", bridged: true)],
            .hostVirtualBridge, .other),
        Row("virbr0 with a tap port", [K.bridge("virbr0", ports: ["vnet0"]), K.tap("vnet0", bridged: true)],
            .hostVirtualBridge, .other),
        Row("a bridge without ports", [K.bridge("cni0", ports: [])], .hostVirtualBridge, .other),
        Row("a bridge known by bridge/ alone", [LinkFacts(name: "br-1f2e", arphrdType: 1, isBridge: true)],
            .hostVirtualBridge, .other),
        Row("a bridge whose ports are gone", [K.bridge("podman0", ports: ["veth9"])], .hostVirtualBridge, .other),
        Row("a VLAN on a host-virtual bridge", [K.stacked("docker0.7", kind: .vlan, on: ["docker0"]),
                                                K.bridge("docker0", ports: ["veth1a2b"]),
                                                K.veth("veth1a2b", bridged: true)], .hostVirtualBridge, .other),
        // C4 veth
        Row("the host side of a routed container's veth", [K.veth("ve-web")], .veth, .ethernet),
        // C7 tap
        Row("a tap with IFF_TAP and no master", [K.tap("vt-vm1")], .tap, .ethernet),
        // C8 unknown virtual ethernet
        Row("vboxnet0: type 1, no kind, no bus", [K.vboxnet0], .unknownVirtualEthernet, .other),
        Row("a macvlan whose parent is in another namespace", [K.stacked("eth0", kind: .macvlan, on: [])],
            .unknownVirtualEthernet, .other),
        Row("a kind no row names", [K.software("vrf-blue", kind: .vrf)], .unknownVirtualEthernet, .other),
        // Cycles end
        Row("a bridge listing itself", [K.bridge("br0", ports: ["br0"])], .hostVirtualBridge, .other),
        Row("two bonds stacked on each other", [K.stacked("bond0", kind: .bond, on: ["bond1"]),
                                                K.stacked("bond1", kind: .bond, on: ["bond0"])],
            .unknownVirtualEthernet, .other),
        Row("a bridge and a bond stacked on each other", [K.bridge("br0", ports: ["bond0"]),
                                                          K.stacked("bond0", kind: .bond, on: ["br0"], enslaved: true)],
            .hostVirtualBridge, .other),
    ]

    @Test("the classification table, first match wins", arguments: rows)
    func classification(row: Row) {
        let machine = Dictionary(row.links.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let link = row.links[0]
        #expect(LinkClass(facts: link, linkNamed: { machine[$0] }, carriesPath: row.carriesPath) == row.linkClass)
        #expect(LinkClassification(link, linkNamed: { machine[$0] }).interfaceType == row.interfaceType)
    }

    @Test("names are never read: the same facts under other names classify alike", arguments: rows)
    func namesAreNeverRead(row: Row) {
        // Every name gets a prefix, in the link itself and wherever another link names it.
        func renamed(_ name: String) -> String { "x" + name }
        let links = row.links.map { facts in
            var facts = facts
            facts.name = renamed(facts.name)
            facts.bridgePorts = facts.bridgePorts.map(renamed)
            facts.lowerLinks = facts.lowerLinks.map(renamed)
            return facts
        }
        let machine = Dictionary(links.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(LinkClass(facts: links[0], linkNamed: { machine[$0] }, carriesPath: row.carriesPath) == row.linkClass)
    }

    @Test("a link never looked up twice on the way down")
    func lowerLinksAreReadOnce() {
        let machine = ["br0": K.bridge("br0", ports: ["br0", "bond0", "bond0"]),
                       "bond0": K.stacked("bond0", kind: .bond, on: ["br0", "bond0"], enslaved: true)]
        var lookups: [String] = []
        _ = LinkClassification(machine["br0"]!, linkNamed: { lookups.append($0); return machine[$0] })
        #expect(lookups == ["bond0"])
    }

    /// What each class may do: the right-hand column of the design's table.
    @Test("what each class may do", arguments: [
        // class, eligible for the path, needs an underlay, counts for `link`, listed as available
        (LinkClass.loopback, false, false, false, false),
        (.sink, false, false, false, false),
        (.port, true, false, false, false),
        (.tunnel, true, true, false, true),
        (.ppp, true, false, true, true),
        (.physical, true, false, true, true),
        (.routedVirtual, true, false, true, true),
        (.hostVirtualBridge, true, false, false, false),
        (.veth, true, false, false, false),
        (.tap, true, false, false, false),
        (.unknownVirtualEthernet, true, false, false, false),
    ] as [(LinkClass, Bool, Bool, Bool, Bool)])
    func whatEachClassMayDo(linkClass: LinkClass, eligible: Bool, underlay: Bool, linkLevel: Bool, available: Bool) {
        #expect(linkClass.isEligibleForPath == eligible)
        #expect(linkClass.needsUnderlay == underlay)
        #expect(linkClass.countsForLinkLevel == linkLevel)
        #expect(linkClass.isListedAsAvailable == available)
    }

    @Test("carrying the path makes only C3, C4, C7 and C8 routed virtual", arguments: LinkClass.allCases)
    func carryingThePath(linkClass: LinkClass) {
        let becomesRouted: Set<LinkClass> = [.hostVirtualBridge, .veth, .tap, .unknownVirtualEthernet, .routedVirtual]
        #expect(linkClass.carryingPath == (becomesRouted.contains(linkClass) ? .routedVirtual : linkClass))
    }
}
