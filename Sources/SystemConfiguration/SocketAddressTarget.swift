import Glibc
internal import ReachdKit

/// What an address given to `SCNetworkReachabilityCreateWithAddress` asks about, as Apple's API
/// means it: the unspecified address (0.0.0.0, `::`) the general routing state, any other the route
/// to it. Read by family, since Linux's `sockaddr` carries no length.
struct SocketAddressTarget: CustomStringConvertible {
    let target: NetworkReachabilityManager.Target
    let description: String

    init?(_ address: UnsafePointer<sockaddr>) {
        let literal: String?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            literal = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                var bytes = socket.pointee.sin_addr
                return bytes.s_addr == 0 ? nil : Self.text(AF_INET, &bytes, length: INET_ADDRSTRLEN)
            }
        case AF_INET6:
            literal = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { socket in
                var bytes = socket.pointee.sin6_addr
                let isUnspecified = withUnsafeBytes(of: &bytes) { $0.allSatisfy { $0 == 0 } }
                return isUnspecified ? nil : Self.text(AF_INET6, &bytes, length: INET6_ADDRSTRLEN)
            }
        default:
            return nil
        }
        if let literal {
            target = .address(literal)
            description = "address = \(literal)"
        } else {
            target = .defaultRoute
            description = "address = 0.0.0.0 (the general routing state)"
        }
    }

    private static func text(_ family: Int32, _ bytes: UnsafeRawPointer, length: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(length))
        guard inet_ntop(family, bytes, &buffer, socklen_t(length)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
