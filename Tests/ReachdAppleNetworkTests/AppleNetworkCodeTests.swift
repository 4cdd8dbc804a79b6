import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// Code written for Apple's platforms against `Network` (Tests/Fixtures/AppleNetwork/AppleCode: an
/// NWPathMonitor singleton, a service over a protocol NWPathMonitor is extended to conform to, a
/// `for await` loop), compiled as it is and run where an app runs: it sees the network of its own
/// namespace, from reachd's engine in its own process or from reachd on its session bus.
@Suite("Apple's Network code, unmodified, on Linux", .timeLimit(.minutes(3)))
struct AppleNetworkCodeTests {
    static let clients = ["singleton", "protocol", "async"]

    @Test("the Apple-style files compile as they are: no #if os(Linux); the only condition the SDK's own (#if compiler(>=6.2))")
    func fixturesCarryNoLinuxConditions() throws {
        let appleCode = AppleFixture.sources.appendingPathComponent("AppleCode")
        let files = try FileManager.default.contentsOfDirectory(atPath: appleCode.path).filter { $0.hasSuffix(".swift") }
        #expect(Set(files) == ["NetworkMonitor.swift", "PathMonitoring.swift", "ConnectivityStream.swift", "ConnectionTypeObserver.swift",
                               "PathWatcher.swift", "NWPathMonitorPublisher.swift"], "\(files)")
        for file in files.map({ "AppleCode/\($0)" }) + ["main.swift"] {
            let text = try String(contentsOf: AppleFixture.sources.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("os(Linux)") && !text.contains("canImport"), "\(file) is conditional")
            // The publisher guards iOS 26's members as the SDK it is modelled on does, for Apple's compilers.
            let conditions = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#if") }
            #expect(conditions.allSatisfy { $0.trimmingCharacters(in: .whitespaces) == "#if compiler(>=6.2)" }
                    && (conditions.isEmpty || file == "AppleCode/NWPathMonitorPublisher.swift"), "\(file): \(conditions)")
        }
        #expect(access(AppleFixture.executable, X_OK) == 0, "the suite builds \(AppleFixture.executable)")
    }

    @Test("the default route going and coming back reaches the singleton, the protocol's service and a for-await loop, within a second")
    func everyClientFollowsTheDefaultRoute() async throws {
        try await withAppleNamespace { namespace in
            let app = try namespace.process(AppleFixture.executable)
            defer { app.stop(SIGKILL); app.removeOutput() }
            func statuses(_ client: String) -> [String] { AppleFixture.lines(of: client, in: app).compactMap { AppleFixture.field("status", of: $0) } }
            try await eventually(timeout: .seconds(20), "every client sees a satisfied path:\n\(app.standardOutput)\(app.standardError)") {
                Self.clients.allSatisfy { statuses($0).last == "satisfied" }
            }
            for client in Self.clients {
                let line = AppleFixture.lines(of: client, in: app).last ?? ""
                #expect(AppleFixture.field("uses", of: line) == "wiredEthernet", "\(client): \(line)")
                #expect(AppleFixture.field("interfaces", of: line)?.hasPrefix("\(namespace.interface):wiredEthernet:") == true, "\(client): \(line)")
                #expect(AppleFixture.field("interfaces", of: line)?.hasSuffix(":0") == false, "an index from the kernel: \(line)")
                #expect(AppleFixture.field("gateways", of: line) == namespace.gateway, "\(client): \(line)")
                #expect(AppleFixture.field("expensive", of: line) == "0" && AppleFixture.field("ipv4", of: line) == "1", "\(client): \(line)")
            }

            let events = try await KernelRouteEvents(namespace: namespace.name)
            let stamps = try OutputStamps(following: app.outputPath)
            defer { events.stop(); stamps.stop() }
            var took: [Duration] = [], toolTook: [Duration] = []
            for (change, expected) in [("route deleted", "unsatisfied"), ("route restored", "satisfied"), ("route deleted again", "unsatisfied")] {
                let seen = Self.clients.map { statuses($0).count }
                let eventsBefore = events.count, stampsBefore = stamps.count
                let start = Date()
                if expected == "unsatisfied" { try await namespace.deleteDefaultRoute() } else { try await namespace.restoreDefaultRoute() }
                try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(5), "\(change): every client follows\n\(app.standardOutput)") {
                    zip(Self.clients, seen).allSatisfy { client, count in statuses(client).dropFirst(count).contains(expected) }
                }
                // From the kernel's event to the last client's line landing in the app's output, as a
                // process of its own stamps it: the engine, the queue and the handler, not ip's start
                // nor this test's polling.
                let event = try await events.waitForTime(after: eventsBefore, matching: expected == "unsatisfied" ? "Deleted default" : "default via")
                var printed = event
                for client in Self.clients {
                    let stamp = try await stamps.waitForStamp(after: stampsBefore, "\(client): \(expected)") {
                        $0.hasPrefix(client + " ") && $0.contains(" status=\(expected) ")
                    }
                    printed = max(printed, stamp)
                }
                took.append(.seconds(printed.timeIntervalSince(event)))
                toolTook.append(.seconds(event.timeIntervalSince(start)))
            }
            // The median, so one change that waited for a busy CPU does not decide it.
            #expect(took.sorted()[1] < .seconds(1), "all three clients followed within \(took) of the kernel's event (ip took \(toolTook) to make it)")
            let after = AppleFixture.lines(of: "singleton", in: app).last ?? ""
            #expect(AppleFixture.field("uses", of: after) == "" && AppleFixture.field("gateways", of: after) == "", "\(after)")
        }
    }

    @Test("required and prohibited interface types as Apple's: a wired path satisfies .wiredEthernet only, and a monitor lists only what it accepts")
    func interfaceFiltersBehaveAsApples() async throws {
        try await withAppleNamespace { namespace in
            let cases: [(arguments: [String], status: String, interfaces: String)] = [
                (["--required", "wiredEthernet"], "satisfied", namespace.interface),
                (["--required", "cellular"], "unsatisfied", ""),
                (["--required", "wifi"], "unsatisfied", ""),
                (["--required", "other"], "unsatisfied", ""),
                (["--required", "loopback"], "unsatisfied", ""),
                (["--prohibited", "wiredEthernet"], "unsatisfied", ""),
                (["--prohibited", "cellular,wifi,other"], "satisfied", namespace.interface),
            ]
            let apps = try cases.map { try namespace.process(AppleFixture.executable, $0.arguments) }
            defer { for app in apps { app.stop(SIGKILL); app.removeOutput() } }
            func last(_ app: ChildProcess) -> String { AppleFixture.lines(of: "filtered", in: app).last ?? "" }
            func names(_ line: String) -> String {
                (AppleFixture.field("interfaces", of: line) ?? "").split(separator: ",").map { String($0.split(separator: ":")[0]) }.joined(separator: ",")
            }
            for (app, expected) in zip(apps, cases) {
                try await eventually(timeout: .seconds(20), "\(expected.arguments): \(expected.status) through [\(expected.interfaces)]\n\(app.standardOutput)\(app.standardError)") {
                    AppleFixture.field("status", of: last(app)) == expected.status && names(last(app)) == expected.interfaces
                }
            }
            // Without a default route, the wired-only monitor has nothing to be satisfied by.
            try await namespace.deleteDefaultRoute()
            try await eventually(timeout: .seconds(10), "the wired-only monitor follows the route:\n\(apps[0].standardOutput)") {
                AppleFixture.field("status", of: last(apps[0])) == "unsatisfied"
            }
        }
    }

    @Test("after cancel() returns, the handler is never called again, whatever the network does")
    func noHandlerCallAfterCancel() async throws {
        try await withAppleNamespace { namespace in
            let app = try namespace.process(AppleFixture.executable, ["--cancel-after-first"])
            defer { app.stop(SIGKILL); app.removeOutput() }
            try await eventually(timeout: .seconds(20), "the first path, then cancel:\n\(app.standardOutput)\(app.standardError)") {
                app.standardOutput.contains("cancelled\n")
            }
            for _ in 1...3 {
                try await namespace.deleteDefaultRoute()
                try await Task.sleep(for: .milliseconds(300))
                try await namespace.restoreDefaultRoute()
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(!app.standardOutput.contains("after-cancel"), "\(app.standardOutput)")
            #expect(AppleFixture.lines(of: "first", in: app).count == 1, "\(app.standardOutput)")
        }
    }

    @Test("a metered modem (NetworkManager's gsm connection over wwan0) is expensive and cellular, in-process and from reachd on the session bus")
    func aModemIsExpensiveAndCellular() async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let networkManager = try await NetworkManagerMock(on: system)
        defer { networkManager.stop() }
        // The modem's IpInterface is wwan0: the namespace's uplink, so the kernel's path agrees.
        try await networkManager.addModem()
        try await networkManager.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/gsm0")
        try await networkManager.setManager("PrimaryConnectionType", "s", "gsm")
        try await networkManager.setManager("Metered", "u", "1")

        try await withAppleNamespace(interface: "wwan0") { namespace in
            func expectModem(_ environment: [String: String], _ who: String) async throws {
                let app = try namespace.process(AppleFixture.executable, environment: environment)
                defer { app.stop(SIGKILL); app.removeOutput() }
                try await eventually(timeout: .seconds(20), "\(who): every client sees an expensive cellular path:\n\(app.standardOutput)\(app.standardError)") {
                    Self.clients.allSatisfy { client in
                        let line = AppleFixture.lines(of: client, in: app).last ?? ""
                        // Metered yes (1), the user's own setting: expensive, and Low Data Mode's nearest,
                        // constrained (porting guide).
                        return AppleFixture.field("status", of: line) == "satisfied" && AppleFixture.field("expensive", of: line) == "1"
                            && AppleFixture.field("constrained", of: line) == "1"
                            && AppleFixture.field("uses", of: line)?.split(separator: ",").contains("cellular") == true
                    }
                }
            }
            // No session bus: the engine in the app, reading NetworkManager on the system bus.
            try await expectModem(["DBUS_SYSTEM_BUS_ADDRESS": system.address], "in-process")

            // reachd on the session bus in the app's namespace, and a system bus the app cannot
            // reach: only reachd can say "modem".
            let session = try PrivateBus(.session)
            defer { session.stop() }
            let reachd = try ReachdProcess(session: session, systemBus: system.address, network: .named(namespace.name))
            defer { reachd.stop() }
            try await reachd.waitUntilServing()
            let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-no-bus-\(UUID().uuidString)").path
            try await expectModem(["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(nowhere)"],
                                  "reachd on the session bus")
        }
    }
}
