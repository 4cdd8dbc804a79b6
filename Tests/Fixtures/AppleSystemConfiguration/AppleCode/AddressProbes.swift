import Foundation
import SystemConfiguration

/// Written as code for iOS writes it: the zero-address target of Apple's samples and the porting
/// guide, and a table of probes, each a port next to a `sockaddr` (which is only 2-aligned, so
/// every `address` here sits 2 bytes past a 4-byte boundary).
struct ReachabilityProbe {
    var port: UInt16
    var address: sockaddr
}

enum AddressReachability {
    static func zeroAddressTarget() -> SCNetworkReachability? {
        var zeroAddress = sockaddr()
        zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zeroAddress.sa_family = sa_family_t(AF_INET)
        return SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress)
    }

    static func probes(for hosts: [String], port: UInt16) -> [ReachabilityProbe] {
        hosts.compactMap { host in
            var ipv4 = sockaddr_in()
            ipv4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 else { return nil }
            return ReachabilityProbe(port: port, address: unsafeBitCast(ipv4, to: sockaddr.self))
        }
    }

    static func targets(for probes: [ReachabilityProbe]) -> [SCNetworkReachability] {
        var probes = probes
        return probes.withUnsafeMutableBufferPointer { buffer in
            buffer.indices.compactMap { index in
                SCNetworkReachabilityCreateWithAddress(nil, &buffer[index].address)
            }
        }
    }
}
