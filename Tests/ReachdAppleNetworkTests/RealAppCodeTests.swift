import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// What code from real apps found (issue 39, contract 6 §5), compiled as it is written for Apple's
/// platforms (Tests/Fixtures/AppleNetwork/AppleCode) and run in a namespace whose only link is
/// wired: filtered monitors describe only what they accept, `cancel()` ends a `for await` loop,
/// and an analytics SDK's publisher reading iOS 26's `linkQuality` builds and runs.
@Suite("Apple's Network code from real apps, on Linux", .timeLimit(.minutes(3)))
struct RealAppCodeTests {
    /// What ConnectionTypeObserver called the connection, each time (`type=…`).
    static func labels(_ app: ChildProcess) -> [String] { AppleFixture.lines(of: "label", in: app) }

    /// The status of the filtered monitor's last path.
    static func lastStatus(_ app: ChildProcess) -> String? {
        AppleFixture.lines(of: "filtered", in: app).last.flatMap { AppleFixture.field("status", of: $0) }
    }

    @Test("a monitor that excludes the only (wired) link describes nothing of it: no type, family, DNS, gateway, cost or interface; code branching on usesInterfaceType says offline")
    func filteredMonitorsDescribeOnlyWhatTheyAccept() async throws {
        try await withAppleNamespace { namespace in
            let excluding = [["--prohibited", "wiredEthernet"], ["--required", "wifi"], ["--required", "loopback"]]
            let wired = try namespace.process(AppleFixture.executable, ["--required", "wiredEthernet"])
            let apps = try excluding.map { try namespace.process(AppleFixture.executable, $0) }
            defer { for app in apps + [wired] { app.stop(SIGKILL); app.removeOutput() } }

            // The accepting monitor sees the wired path, and its code labels it.
            try await eventually(timeout: .seconds(20), "the wired monitor is satisfied:\n\(wired.standardOutput)\(wired.standardError)") {
                Self.lastStatus(wired) == "satisfied" && Self.labels(wired).last == "type=ethernet"
            }
            let accepted = AppleFixture.lines(of: "filtered", in: wired).last ?? ""
            #expect(AppleFixture.field("uses", of: accepted) == "wiredEthernet" && AppleFixture.field("ipv4", of: accepted) == "1"
                    && AppleFixture.field("gateways", of: accepted) == namespace.gateway, "\(accepted)")

            // Every excluding monitor has had its first answer, then a change of the wired path.
            for app in apps {
                try await eventually(timeout: .seconds(20), "an answer and a label:\n\(app.standardOutput)\(app.standardError)") {
                    !AppleFixture.lines(of: "filtered", in: app).isEmpty && !Self.labels(app).isEmpty
                }
            }
            try await namespace.deleteDefaultRoute()
            try await eventually(timeout: .seconds(10), "the wired monitor follows the route away:\n\(wired.standardOutput)") {
                Self.lastStatus(wired) == "unsatisfied"
            }
            try await namespace.restoreDefaultRoute()
            try await eventually(timeout: .seconds(10), "the wired monitor follows the route back:\n\(wired.standardOutput)") {
                Self.lastStatus(wired) == "satisfied"
            }
            for index in apps.indices {
                Self.expectNothingOfTheWiredLink(apps[index], excluding[index])
            }
        }
    }

    /// Every path `app` printed is unsatisfied and empty, and its label offline.
    static func expectNothingOfTheWiredLink(_ app: ChildProcess, _ arguments: [String]) {
        let expected = ["status": "unsatisfied", "uses": "", "interfaces": "", "gateways": "", "ipv4": "0", "ipv6": "0",
                        "dns": "0", "expensive": "0", "constrained": "0"]
        for line in AppleFixture.lines(of: "filtered", in: app) {
            let seen = expected.keys.reduce(into: [String: String]()) { $0[$1] = AppleFixture.field($1, of: line) ?? "?" }
            #expect(seen == expected, "\(arguments): \(line)")
        }
        let labels = Self.labels(app)
        #expect(labels.allSatisfy { $0 == "type=offline" }, "\(arguments): \(labels)")
    }

    @Test("cancel() ends a for-await loop over the monitor, and no path comes to it after")
    func cancelEndsAForAwaitLoop() async throws {
        try await withAppleNamespace { namespace in
            let app = try namespace.process(AppleFixture.executable, ["--for-await-cancel"])
            defer { app.stop(SIGKILL); app.removeOutput() }
            try await eventually(timeout: .seconds(20), "the first path, then cancel:\n\(app.standardOutput)\(app.standardError)") {
                app.standardOutput.contains("cancelled\n")
            }
            try await eventually(timeout: .seconds(10), "the loop ends after cancel():\n\(app.standardOutput)\(app.standardError)") {
                app.standardOutput.contains("loop-ended\n")
            }
            // A change after the end reaches no loop.
            try await namespace.deleteDefaultRoute()
            try await Task.sleep(for: .milliseconds(300))
            #expect(AppleFixture.lines(of: "looped", in: app).count == 1, "\(app.standardOutput)")
            #expect(AppleFixture.lines(of: "after-cancel", in: app).isEmpty, "\(app.standardOutput)")
            #expect(app.standardOutput.components(separatedBy: "loop-ended\n").count == 2, "once: \(app.standardOutput)")
        }
    }

    @Test("an SDK's NWPathMonitorPublisher reading linkQuality and isUltraConstrained under #if compiler(>=6.2) and #available(iOS 26, *) builds and runs: good (the veth's speed), false, false")
    func publisherReadsIOS26Members() async throws {
        try await withAppleNamespace { namespace in
            let app = try namespace.process(AppleFixture.executable, ["--publisher"])
            defer { app.stop(SIGKILL); app.removeOutput() }
            try await eventually(timeout: .seconds(20), "the publisher reports the wired path:\n\(app.standardOutput)\(app.standardError)") {
                AppleFixture.lines(of: "publisher", in: app).last.flatMap { AppleFixture.field("reachability", of: $0) } == "yes"
            }
            let line = AppleFixture.lines(of: "publisher", in: app).last ?? ""
            // The guards are true on Linux (Swift 6.2 or later; `*` covers Linux), so the members are read.
            #expect(AppleFixture.field("quality", of: line) == "good", "the wired link says 10000 Mb/s: \(line)")
            #expect(AppleFixture.field("ultra", of: line) == "0" && AppleFixture.field("constrained", of: line) == "0", "\(line)")
            #expect(AppleFixture.field("interfaces", of: line) == "wiredEthernet", "\(line)")
        }
    }
}
