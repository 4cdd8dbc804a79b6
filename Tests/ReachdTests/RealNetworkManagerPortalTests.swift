import Foundation
import ReachdTestSupport
import Testing

/// contract-2 §1.6 T1.7 over the real NetworkManager with its connectivity check on
/// (`nm-netns --check`): a web server in the peer namespace answers the check URL with a
/// login page, as a captive portal does.
extension RealNetworkManagerTests {
    @Test("T1.7: a captive portal is published as NetworkManager says it (intervention required) and never upgraded, not even over an unmanaged uplink (R3)")
    func captivePortalIsNeverOverridden() async throws {
        try await Self.withReachdOverRealNetworkManager(options: ["--no-dns", "--check"]) { namespaces, reachd, property in
            let portal = try Self.servePortal(namespaces)
            defer { portal.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), pollingEvery: .milliseconds(200), "NetworkManager finds the portal") {
                try await Self.nmProperty(namespaces, "Connectivity") == "u 2"
            }
            try await eventually(timeout: .seconds(10), "reachd publishes it:\n\(reachd.standardError)") {
                try await property("UnsatisfiedReason") == "s \"portal\""
            }
            // Reachable | ConnectionRequired | InterventionRequired, Status Not Reachable.
            #expect(try await property("Flags") == "u 22")
            #expect(try await property("Status") == "i 0")
            #expect(try await property("Connectivity") == "s \"portal\"")
            #expect(try await property("Source") == "s \"networkmanager\"")

            // A default route over a link NetworkManager cannot touch does not get past a portal.
            try await Self.addUnmanagedUplink(namespaces)
            try await Task.sleep(for: .seconds(2))  // twice the override delay
            #expect(try await property("Status") == "i 0", "\(reachd.standardError)")
            #expect(try await property("UnsatisfiedReason") == "s \"portal\"")
            #expect(try await property("Flags") == "u 22")

            // Logged in: the check URL answers what NetworkManager expects.
            try namespaces.value("CHECK_RESPONSE").write(toFile: namespaces.directory + "/www/check", atomically: true, encoding: .utf8)
            try await eventually(timeout: .seconds(20), pollingEvery: .milliseconds(200), "NetworkManager says FULL") {
                try await Self.nmProperty(namespaces, "Connectivity") == "u 4"
            }
            try await eventually(timeout: .seconds(10), "Reachable after the login:\n\(reachd.standardError)") {
                try await property("Status") == "i 2"
            }
            #expect(try await property("Connectivity") == "s \"full\"")
        }
    }
}

extension RealNetworkManagerTests {
    /// A web server in the peer namespace that answers NetworkManager's check URL with a login
    /// page: DIR/www/check, which a test may rewrite.
    static func servePortal(_ namespaces: Namespaces) throws -> ChildProcess {
        let www = namespaces.directory + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try "<html><body>Please log in</body></html>".write(toFile: www + "/check", atomically: true, encoding: .utf8)
        guard let uri = URL(string: try namespaces.value("CHECK_URI")), let host = uri.host, let port = uri.port else {
            throw TestFailure("nm-netns wrote an unexpected CHECK_URI")
        }
        return try ChildProcess("/usr/sbin/ip", ["netns", "exec", try namespaces.value("PEER_NETNS"), "/usr/bin/python3",
                                                 "-m", "http.server", String(port), "--bind", host, "--directory", www],
                                unsetting: ["PYTHONPATH", "PYTHONHOME"])
    }

    /// One of NetworkManager's own properties, as busctl prints it.
    static func nmProperty(_ namespaces: Namespaces, _ name: String) async throws -> String {
        try await runToolChecked("busctl", ["--address=\(try namespaces.value("SYSTEM_BUS_ADDRESS"))", "get-property",
                                            "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                                            "org.freedesktop.NetworkManager", name])
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
