import Glibc
internal import ReachdKit

/// What an address given to `SCNetworkReachabilityCreateWithAddress` asks about, as Apple's API
/// means it: the unspecified address (0.0.0.0, `::`) the general routing state, any other the route
/// to it. Read by family, since Linux's `sockaddr` carries no length.
struct SocketAddressTarget: CustomStringConvertible {
    let target: NetworkReachabilityManager.Target
    let description: String

    /// Every field is read with `loadUnaligned`, as Apple's C reads it: a `sockaddr` is only
    /// 2-aligned (one after a `UInt16` in a struct sits at 2 mod 4), and binding it to
    /// `sockaddr_in` (4-aligned) would trap in a debug build.
    init?(_ address: UnsafePointer<sockaddr>) {
        let bytes = UnsafeRawPointer(address)
        let family = bytes.loadUnaligned(fromByteOffset: MemoryLayout<sockaddr>.offset(of: \.sa_family)!, as: sa_family_t.self)
        let literal: String?
        switch Int32(family) {
        case AF_INET:
            var host = bytes.loadUnaligned(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: in_addr.self)
            literal = host.s_addr == 0 ? nil : Self.text(AF_INET, &host, length: INET_ADDRSTRLEN)
        case AF_INET6:
            var host = bytes.loadUnaligned(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!, as: in6_addr.self)
            let isUnspecified = withUnsafeBytes(of: &host) { $0.allSatisfy { $0 == 0 } }
            literal = isUnspecified ? nil : Self.text(AF_INET6, &host, length: INET6_ADDRSTRLEN)
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
