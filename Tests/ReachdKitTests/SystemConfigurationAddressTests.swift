import Foundation
import Glibc
import ReachdTestSupport
import SystemConfiguration
import Testing

/// `SCNetworkReachabilityCreateWithAddress` reads a `sockaddr` as Apple's C does, assuming no more
/// than its own 2-byte alignment (issue 39, contract 6 §5). The suite builds debug, where binding
/// a 2-aligned `sockaddr` to `sockaddr_in` traps: these run there.
@Suite("SystemConfiguration: addresses at any alignment")
struct SystemConfigurationAddressTests {
    /// `literal` as a `sockaddr_in` or `sockaddr_in6`, byte for byte.
    static func socketAddressBytes(_ literal: String) -> [UInt8] {
        var ipv4 = sockaddr_in()
        ipv4.sin_family = sa_family_t(AF_INET)
        if inet_pton(AF_INET, literal, &ipv4.sin_addr) == 1 { return withUnsafeBytes(of: ipv4) { Array($0) } }
        var ipv6 = sockaddr_in6()
        ipv6.sin6_family = sa_family_t(AF_INET6)
        precondition(inet_pton(AF_INET6, literal, &ipv6.sin6_addr) == 1, literal)
        return withUnsafeBytes(of: ipv6) { Array($0) }
    }

    @Test("a sockaddr_in or sockaddr_in6 at every offset 0 through 7 of a byte buffer is read, never trapped on", arguments: 0..<8)
    func everyOffsetOfAByteBuffer(offset: Int) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        for (literal, expected) in [
            ("192.0.2.1", "address = 192.0.2.1"),
            ("2001:db8::7", "address = 2001:db8::7"),
            ("0.0.0.0", "address = 0.0.0.0 (the general routing state)"),
            ("::", "address = 0.0.0.0 (the general routing state)"),
        ] {
            buffer.initializeMemory(as: UInt8.self, repeating: 0xA5)
            let bytes = Self.socketAddressBytes(literal)
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count]).copyBytes(from: bytes)
            // As C hands it over: a pointer to wherever the caller's bytes are.
            let address = UnsafePointer<sockaddr>(OpaquePointer(buffer.baseAddress! + offset))
            let target = try #require(SCNetworkReachabilityCreateWithAddress(nil, address), "\(literal) at offset \(offset)")
            #expect(target.description.contains("{\(expected)"), "\(literal) at offset \(offset): \(target)")
        }
    }

    @Test("Apple-style code: the porting guide's zero address, and sockaddrs after a UInt16 in a struct, give their targets")
    func appleStyleStructs() async throws {
        let fixture = try SystemConfigurationTests.fixture(["address-probes"], in: nil)
        defer { fixture.removeOutput() }
        #expect(try await fixture.exit(timeout: .seconds(20)) == 0, "\(fixture.standardOutput)\(fixture.standardError)")
        // The sockaddr two bytes into an 18-byte struct: in an array, at 2 mod 4.
        #expect(SystemConfigurationTests.lines(fixture, "probe ") == ["probe offset=2 stride=18"], "\(fixture.standardOutput)")
        let targets = SystemConfigurationTests.lines(fixture, "target ").map { $0.replacingOccurrences(of: "_", with: " ") }
        #expect(targets.count == 4, "\(fixture.standardOutput)\(fixture.standardError)")
        for (line, expected) in zip(targets, ["address = 0.0.0.0 (the general routing state)", "address = 192.0.2.1",
                                              "address = 198.51.100.7", "address = 127.0.0.1"]) {
            #expect(line.contains("{\(expected)"), "\(line)")
        }
        #expect(SystemConfigurationTests.lines(fixture, "zero flags=").count == 1, "GetFlags answered: \(fixture.standardOutput)")
    }
}
