import Foundation
import ReachdKit
import ReachdTestSupport
import Testing

/// `reachctl` as people and scripts use it, against the real reachd.
@Suite("reachctl", .timeLimit(.minutes(2)))
struct ReachctlTests {
    /// The environment with the locale pinned, so the host's own locale cannot change the output.
    static let english = ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"]

    /// `reachctl status --json` as a script reads it (the keys it relies on; more may come).
    struct StatusJSON: Decodable, Equatable, CustomStringConvertible {
        var status: Int
        var statusString: String
        var localizedStatusString: String
        var flags: UInt32
        var flagNames: [String]
        var reachable: Bool
        var reachableViaWWAN: Bool
        var reachableViaWiFi: Bool
        var interfaceType: String
        var interface: String
        var metered: Bool
        var connectivity: String
        var backend: String

        var description: String {
            "status \(status) \"\(statusString)\" flags \(flags) \(flagNames) reachable \(reachable)/WWAN \(reachableViaWWAN)/WiFi "
                + "\(reachableViaWiFi) \(interfaceType) \"\(interface)\" metered \(metered) \(connectivity) \(backend)"
        }
    }

    /// A NetworkManager situation the test builds on the mock, and what `status --json` must then
    /// say, written by hand from docs/mapping.md (Reachable 0x2, ConnectionRequired 0x4,
    /// InterventionRequired 0x10, IsWWAN 0x40000; NM Metered 0 UNKNOWN, 1 YES, 4 GUESS_NO).
    struct Situation: Sendable, CustomTestStringConvertible {
        let name: String
        let setUp: @Sendable (NetworkManagerMock) async throws -> Void
        let expected: StatusJSON
        var testDescription: String { name }
    }

    static let active = NetworkManagerMock.manager + "/ActiveConnection/"
    static let situations = [
        Situation(name: "Wi-Fi wlan0, metered YES", setUp: { mock in
            try await mock.addWiFi()
            try await mock.setManager("PrimaryConnection", "o", active + "wifi0")
            try await mock.setManager("PrimaryConnectionType", "s", "802-11-wireless")
            try await mock.setManager("Metered", "u", "1")
        }, expected: StatusJSON(
            status: 2, statusString: "Reachable via WiFi", localizedStatusString: "Reachable via WiFi",
            flags: 0x2, flagNames: ["Reachable"], reachable: true, reachableViaWWAN: false, reachableViaWiFi: true,
            interfaceType: "wifi", interface: "wlan0", metered: true, connectivity: "full", backend: "networkmanager")),
        Situation(name: "gsm on modem0 (IP interface wwan0), metered UNKNOWN", setUp: { mock in
            try await mock.addModem()
            try await mock.setManager("PrimaryConnection", "o", active + "gsm0")
            try await mock.setManager("PrimaryConnectionType", "s", "gsm")
            try await mock.setManager("Metered", "u", "0")
        }, expected: StatusJSON(
            status: 1, statusString: "Reachable via WWAN", localizedStatusString: "Reachable via WWAN",
            flags: 0x40002, flagNames: ["Reachable", "IsWWAN"], reachable: true, reachableViaWWAN: true, reachableViaWiFi: false,
            interfaceType: "wwan", interface: "wwan0", metered: true, connectivity: "full", backend: "networkmanager")),
        Situation(name: "Wi-Fi behind a captive portal, metered GUESS_NO", setUp: { mock in
            try await mock.addWiFi()
            try await mock.setManager("PrimaryConnection", "o", active + "wifi0")
            try await mock.setManager("Metered", "u", "4")
            try await mock.setManager("Connectivity", "u", "2")
        }, expected: StatusJSON(
            status: 0, statusString: "Not Reachable", localizedStatusString: "Not Reachable",
            flags: 0x16, flagNames: ["Reachable", "ConnectionRequired", "InterventionRequired"],
            reachable: false, reachableViaWWAN: false, reachableViaWiFi: false,
            interfaceType: "wifi", interface: "wlan0", metered: false, connectivity: "portal", backend: "networkmanager")),
    ]

    @Test("status --json reports what the test put into NetworkManager", arguments: situations)
    func statusJSONReportsNetworkManagerSituation(_ situation: Situation) async throws {
        try await withWorld { world in
            try await situation.setUp(world.networkManager)
            // reachd follows the mock's signals, so ask until it has caught up (or the time is up).
            var last = ""
            var report: StatusJSON?
            do {
                try await eventually(timeout: .seconds(15), "status --json reports \(situation.expected)") {
                    let result = try await world.reachctl("status", "--json", environment: Self.english)
                    last = result.transcript
                    report = try? JSONDecoder().decode(StatusJSON.self, from: Data(result.standardOutput.utf8))
                    return report == situation.expected
                }
            } catch {
                Issue.record("\(situation.name): expected \(situation.expected)\n     got \(report.map { "\($0)" } ?? "no JSON")\n\(last)")
            }
        }
    }

    @Test("status prints the status and the flags by name")
    func statusHumanOutput() async throws {
        try await withWorld { world in
            try await world.networkManager.setManager("PrimaryConnectionType", "s", "gsm")
            try await world.waitForServiceStatus(.reachableViaWWAN)
            let result = try await world.reachctl("status", environment: Self.english)
            #expect(result.succeeded, "\(result.transcript)")
            let lines = result.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.first == "Reachable via WWAN")
            #expect(lines.contains("flags:        Reachable|IsWWAN"))
        }
    }

    @Test("watch prints the current status, then exactly one line per change, each at once")
    func watchPrintsOneLinePerChange() async throws {
        try await withWorld { world in
            let watch = try world.backgroundReachctl("watch", environment: Self.english)
            defer { watch.stop() }
            let json = try world.backgroundReachctl("watch", "--json", environment: Self.english)
            defer { json.stop() }
            try await eventually(timeout: .seconds(15), "watch printed the current status: \(watch.output)") { watch.lines.count == 1 && json.lines.count == 1 }
            #expect(watch.lines[0].hasPrefix("Reachable via WiFi  flags: Reachable"))

            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "watch printed the change: \(watch.output)") { watch.lines.count == 2 && json.lines.count == 2 }
            #expect(watch.lines[1].hasPrefix("Not Reachable  flags: 0"))

            try await world.networkManager.setManager("PrimaryConnectionType", "s", "gsm")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "watch printed the change: \(watch.output)") { watch.lines.count == 3 && json.lines.count == 3 }
            #expect(watch.lines[2].hasPrefix("Reachable via WWAN  flags: Reachable|IsWWAN"))

            // Nothing more without a change.
            try await Task.sleep(for: .milliseconds(300))
            #expect(watch.lines.count == 3, "\(watch.output)")
            #expect(!watch.hasExited)
            let statuses = try json.lines.map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["status"] as? Int
            }
            #expect(statuses == [2, 0, 1])
        }
    }

    @Test("watch: a change of only the reason (DISCONNECTED to ASLEEP) is a line with the new reason, never the same line twice")
    func watchPrintsTheReason() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let watch = try world.backgroundReachctl("watch", environment: Self.english)
            defer { watch.stop() }
            let json = try world.backgroundReachctl("watch", "--json", environment: Self.english)
            defer { json.stop() }
            try await eventually(timeout: .seconds(15), "watch printed the current status: \(watch.output)") { watch.lines.count == 1 && json.lines.count == 1 }
            // DISCONNECTED, then ASLEEP: Not Reachable both times, for another reason.
            try await world.networkManager.setState(10, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "watch printed the change: \(watch.output)") { watch.lines.count == 2 }
            #expect(watch.lines[0].hasPrefix("Not Reachable") && watch.lines[1].hasPrefix("Not Reachable"), "\(watch.output)")
            #expect(watch.lines[1].hasSuffix("  reason: disabled"), "\(watch.output)")
            #expect(watch.lines[0] != watch.lines[1], "\(watch.output)")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "watch printed the change: \(watch.output)") { watch.lines.count == 3 }
            #expect(watch.lines[2].hasPrefix("Reachable via WiFi") && !watch.lines[2].contains("reason:"), "\(watch.output)")
            try await eventually(timeout: .seconds(15), "the JSON watch printed every change: \(json.output)") { json.lines.count >= 3 }
            #expect(zip(watch.lines, watch.lines.dropFirst()).allSatisfy { $0 != $1 }, "\(watch.output)")
        }
    }

    @Test("wait exits 0 once NetworkManager goes online")
    func waitExitsZeroWhenOnline() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let wait = try world.backgroundReachctl("wait", "--timeout", "30")
            defer { wait.stop() }
            try await Task.sleep(for: .milliseconds(500))
            #expect(!wait.hasExited, "wait returned while offline: \(wait.output)")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            let status = try await wait.child.exit(timeout: .seconds(15))
            #expect(status == 0, "\(wait.output)")
        }
    }

    @Test("wait exits 1 on timeout while offline; --timeout 0 checks once")
    func waitTimesOut() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let started = ContinuousClock.now
            let timedOut = try await world.reachctl("wait", "--timeout", "1", environment: Self.english)
            #expect(timedOut.status == 1, "\(timedOut.transcript)")
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(timedOut.standardError.contains("timed out after 1 s: level routable not reached (no-route)"),
                    "\(timedOut.transcript)")
            #expect(try await world.reachctl("wait", "--timeout", "0").status == 1)
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await world.waitForServiceStatus(.reachableViaWiFi)
            #expect(try await world.reachctl("wait", "--timeout", "0").status == 0)
        }
    }

    @Test("with the session bus chosen, without reachd and without activation, status, path and host exit 3 with a sentence that names the fix")
    func statusWithoutService() async throws {
        try await withWorld(.absent) { world in
            for command in [["status"], ["path"], ["host", "127.0.0.1"]] {
                let result = try await runTool(Executables.reachctl, command + ["--service", "session"],
                                               environment: ["DBUS_SESSION_BUS_ADDRESS": world.session.address])
                #expect(result.status == 3, "\(result.transcript)")
                let text = result.standardError
                #expect(text.hasPrefix("reachctl: reachd is not running, and this session bus cannot start it: "
                                       + "it is not installed for D-Bus activation."), "\(result.transcript)")
                for fix in ["Scripts/install", "sudo apt install ./reachd_*.deb", "'reachd &'"] {
                    #expect(text.contains(fix), "\(fix): \(result.transcript)")
                }
                // The D-Bus error name stays, at the end, for searches and bug reports.
                #expect(text.hasSuffix(" (org.freedesktop.DBus.Error.ServiceUnknown)\n"), "\(result.transcript)")
                #expect(!text.contains("provided by any .service files"), "the bus's own words are replaced: \(result.transcript)")
            }
        }
    }
}

/// Status strings in the locale's language.
@Suite("Localized status strings", .timeLimit(.minutes(2)))
struct LocalizationTests {
    static let chinese = ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"]

    @Test("LANG=zh_CN.UTF-8 gives Simplified Chinese in reachctl's text and JSON")
    func simplifiedChinese() async throws {
        try await withWorld { world in
            let status = try await world.reachctl("status", environment: Self.chinese)
            #expect(status.standardOutput.hasPrefix("通过 WiFi 连接\n"), "\(status.transcript)")
            let json = try await world.reachctl("status", "--json", environment: Self.chinese)
            let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
            #expect(object?["localizedStatusString"] as? String == "通过 WiFi 连接")
            // AFNetworking's English string stays as the service publishes it.
            #expect(object?["statusString"] as? String == "Reachable via WiFi")

            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let offline = try await world.reachctl("status", environment: Self.chinese)
            #expect(offline.standardOutput.hasPrefix("无法连接网络\n"), "\(offline.transcript)")
            let english = try await world.reachctl("status", environment: ["LC_ALL": "C", "LANG": "zh_CN.UTF-8"])
            #expect(english.standardOutput.hasPrefix("Not Reachable\n"), "\(english.transcript)")
        }
    }

    /// The locale the manager's process runs in, the state the test gives NetworkManager, and the
    /// string the manager must then give, written out.
    static let managerCases: [(locale: [String: String], state: UInt32, expected: String)] = [
        (["LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"], 70, "通过 WiFi 连接"),
        (["LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"], 20, "无法连接网络"),
        (["LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "C.UTF-8"], 70, "通过 WiFi 连接"),
        // LC_ALL wins over LANG: English although LANG asks for Chinese.
        (["LC_ALL": "C", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"], 70, "Reachable via WiFi"),
    ]

    /// The manager reads the locale of the process it runs in, so each case runs it in a child
    /// process (an exit test) whose environment is set before the manager exists; setting it in
    /// this process would change the locale of every test running beside this one.
    @Test("the manager's localizedNetworkReachabilityStatusString follows the process's locale",
          arguments: managerCases)
    func managerLocalizedString(locale: [String: String], state: UInt32, expected: String) async throws {
        try await withWorld { world in
            try await world.networkManager.setState(state, emittingStateChanged: false)
            try await world.waitForServiceStatus(state == 70 ? .reachableViaWiFi : .notReachable)
            let address = world.session.address
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                [address = address as String, locale = locale as [String: String]] in
                for (name, value) in locale { setenv(name, value, 1) }
                let manager = NetworkReachabilityManager(.defaultRoute, sessionBusAddress: address)
                var updates = manager.updates.makeAsyncIterator()
                _ = await updates.next()
                // Unbuffered: the exit test ends the process right after the body returns.
                FileHandle.standardOutput.write(Data((manager.localizedNetworkReachabilityStatusString + "\n").utf8))
            }
            let printed = result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) }
            #expect(printed == expected + "\n", "locale \(locale), NetworkManager State \(state)")
        }
    }
}
