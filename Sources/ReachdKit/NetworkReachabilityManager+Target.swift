internal import ReachdDBus
import Glibc

extension NetworkReachabilityManager {
    /// What a manager follows: the default route (`shared`, `init()`), or one host through a
    /// monitor object the service makes for this client (`init(domain:)`, `init(address:)`).
    ///
    /// ```swift
    /// NetworkReachabilityManager.Target(host: "2001:db8::1")   // .address("2001:db8::1")
    /// NetworkReachabilityManager.Target(host: "example.org")   // .domain("example.org")
    /// ```
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        /// The default route: the properties of `/io/reachd/Reachability1`.
        case defaultRoute
        /// A DNS name (`ManagerForDomain`).
        case domain(String)
        /// An IPv4 or IPv6 literal (`ManagerForAddress`).
        case address(String)

        /// `.address` for an IPv4 or IPv6 literal, `.domain` for anything else.
        public init(host: String) {
            self = Self.isAddressLiteral(host) ? .address(host) : .domain(host)
        }

        /// The host name or address; nil for the default route.
        public var host: String? {
            switch self {
            case .defaultRoute: nil
            case .domain(let host), .address(let host): host
            }
        }

        public var description: String { host ?? "default route" }

        /// The method that makes a monitor for this target.
        var monitorRequest: (method: MemberName, host: String)? {
            switch self {
            case .defaultRoute: nil
            case .domain(let domain): ("ManagerForDomain", domain)
            case .address(let address): ("ManagerForAddress", address)
            }
        }

        static func isAddressLiteral(_ text: String) -> Bool {
            var ipv4 = in_addr()
            var ipv6 = in6_addr()
            return inet_pton(AF_INET, text, &ipv4) == 1 || inet_pton(AF_INET6, text, &ipv6) == 1
        }
    }
}
