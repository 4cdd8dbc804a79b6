import Foundation
import ReachdTestSupport
import Testing

/// `LinkQuality` (Apple's `NWPath.linkQuality`) as a client sees it (docs/mapping.md, "Link
/// quality"): graded from what the link measures, steady while the signal only flutters, and
/// changing at most once every 5 s on one link.
@Suite("LinkQuality from the link's measurements", .timeLimit(.minutes(2)))
struct LinkQualityServiceTests {
    /// `busctl get-property … NAME`'s line: `s "good"`.
    static func property(_ name: String, _ session: PrivateBus) async throws -> String {
        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                            ReachdProcess.path, ReachdProcess.interface, name])
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `LinkQuality` values announced so far, in order.
    static func announcedQualities(_ monitor: ReachdSignalMonitor) -> [String] {
        monitor.signals.compactMap {
            guard case .propertiesChanged(let changed) = $0 else { return nil }
            return changed["LinkQuality"]
        }
    }

    @Test("Wi-Fi: the access point's Strength grades it; fluttering within the band announces nothing, not even Details; a drop past it is announced once, a rise back no sooner than 5 s later")
    func accessPointStrengthGradesWiFi() async throws {
        try await withReachdOverWiFi { session, mock, reachd, monitor in
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"", "the template's access point has Strength 80")
            let details = try await Self.property("Details", session)
            #expect(details.contains("\"link-signal\" y 80") && details.contains("\"link-signal-source\" s \"networkmanager\""), "\(details)")

            // Within 5 points of good's threshold (55): fading, not a change.
            for strength: UInt8 in [52, 58, 51, 57] {
                try await mock.setAccessPointStrength(strength)
            }
            try await eventually(timeout: .seconds(10), "Details says the last strength") {
                try await Self.property("Details", session).contains("\"link-signal\" y 57")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(!monitor.output.contains("PropertiesChanged"), "a signal within the band announces nothing:\n\(monitor.output)")
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"")

            let beforeDrop = ContinuousClock.now
            try await mock.setAccessPointStrength(20)
            try await eventually(timeout: .seconds(10), "minimal is announced: \(monitor.output)") {
                Self.announcedQualities(monitor) == ["<'minimal'>"]
            }
            // Straight back up: the same link changed grade a moment ago.
            try await mock.setAccessPointStrength(90)
            try await eventually(timeout: .seconds(15), "good is announced again: \(monitor.output)") {
                Self.announcedQualities(monitor) == ["<'minimal'>", "<'good'>"]
            }
            let heldFor = ContinuousClock.now - beforeDrop
            #expect(heldFor >= .seconds(5), "two changes of grade on one link came \(heldFor) apart")
            #expect(monitor.signals.allSatisfy {
                if case .propertiesChanged(let changed) = $0 { return Array(changed.keys) == ["LinkQuality"] }
                return false
            }, "only LinkQuality changed: \(monitor.signals)")
            // Nothing is left armed: no hold timer, no polling of the signal.
            try await Task.sleep(for: .seconds(1))
            let calls = try await Self.systemCalls(of: reachd, over: .seconds(3))
            #expect(calls.isEmpty, "system calls while idle after the changes: \(calls.prefix(20))")
        }
    }

    /// The system calls `reachd` makes over `duration` (strace -f), without the wait it was in
    /// when strace attached and let go.
    static func systemCalls(of reachd: ReachdProcess, over duration: Duration) async throws -> [Substring] {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-idle-\(reachd.pid)").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let strace = try ChildProcess("/usr/bin/strace", ["-f", "-o", trace, "-p", String(reachd.pid)])
        try await eventually(timeout: .seconds(10), "strace attaches: \(strace.standardError)") {
            strace.standardError.contains("attached")
        }
        try await Task.sleep(for: duration)
        strace.stop(SIGINT)
        _ = try? await strace.exit(timeout: .seconds(10))
        return ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { !$0.contains("<detached") && !$0.contains("resuming interrupted") }
    }

    @Test("Ethernet: the kernel's speed for the path's link (a veth says 10000 Mb/s) is good, with the speed in Details")
    func ethernetSpeedGradesTheKernelsPath() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
            #expect(try await Self.property("Interface", session) == "s \"rv0\"")
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"")
            let details = try await Self.property("Details", session)
            #expect(details.contains("\"link-speed-mbps\" u 10000"), "\(details)")
            #expect(!details.contains("link-signal"), "an Ethernet link has no radio signal: \(details)")
        }
    }
}
