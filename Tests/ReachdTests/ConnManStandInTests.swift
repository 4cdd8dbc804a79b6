import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// ConnMan's media a namespace cannot make (a modem, roaming, a VPN), from a stand-in that answers
/// ConnMan's interface on the private system bus (Scripts/harness/connman-standin) over real links:
/// the client's veth for the cellular and Wi-Fi services, a real tun device for the VPN. The
/// stand-in's shapes are checked against the real connmand's in the same run, so it cannot drift
/// into answering what ConnMan never says.
@Suite("reachd with a ConnMan stand-in for cellular, roaming and VPN", .serialized, .timeLimit(.minutes(3)))
struct ConnManStandInTests {
    typealias Real = RealConnManTests

    /// busctl --json=short's `{"type": …, "data": …}` of a call, parsed.
    static func json(_ namespaces: Real.Namespaces, _ action: String) async throws -> [String: Any] {
        let text = try await namespaces.output(action)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("\(action) printed no JSON object: \(text)")
        }
        return object
    }

    /// `a{sv}` as busctl prints it: each key's D-Bus type.
    static func types(_ dictionary: Any?) -> [String: String] {
        guard let dictionary = dictionary as? [String: Any] else { return [:] }
        return dictionary.compactMapValues { ($0 as? [String: Any])?["type"] as? String }
    }

    /// The first service's `a{sv}` of a GetServices answer.
    static func firstService(_ answer: [String: Any]) -> [String: Any] {
        let list = (answer["data"] as? [Any])?.first as? [Any]
        let entry = list?.first as? [Any]
        return entry?.last as? [String: Any] ?? [:]
    }

    static func withStandIn(
        _ body: (Real.Namespaces, ReachdProcess, _ set: (String) async throws -> Void) async throws -> Void
    ) async throws {
        guard geteuid() == 0 else { throw TestFailure("this test needs root (network namespaces); run it with sudo -E Scripts/test") }
        let directory = "/tmp/rcs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer {
            if let down = try? ChildProcess(Real.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await runTool(Real.harness, ["--standin", "up", directory], timeout: .seconds(60))
        guard up.succeeded else { throw TestFailure("connman-netns --standin up failed: \(up.transcript)") }
        let namespaces = Real.Namespaces(directory: directory, environment: try Real.readEnvironment(directory))
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: try namespaces.value("SYSTEM_BUS_ADDRESS"),
                                 network: .named(try namespaces.value("CLIENT_NETNS"))) { reachd in
                try await body(namespaces, reachd) { state in
                    try await runToolChecked(Real.harness, ["standin-set", directory, state], timeout: .seconds(30))
                }
            }
        }
    }

    static func expectProperties(_ expected: [String: String], after what: String, reachd: ReachdProcess) async throws {
        var seen: [String: String] = [:]
        do {
            try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(50), "after \(what): \(expected)") {
                for name in expected.keys { seen[name] = try await Real.property(name, reachd) }
                return seen == expected
            }
        } catch {
            throw TestFailure("after \(what) reachd publishes \(seen), not \(expected)\nreachd:\n\(reachd.standardError.suffix(3000))")
        }
    }

    @Test("the stand-in answers GetProperties and GetServices in the real connmand's shapes (compared in this run)")
    func standInHasTheRealShapes() async throws {
        // The real connmand, ready on a DHCP lease (its online check is not needed for shapes).
        try await Real.withReachdOverConnMan(options: ["--no-check"]) { real, _, _ in
            let realProperties = try await Self.json(real, "get-properties")
            let realServices = try await Self.json(real, "get-services")
            try await Self.withStandIn { standIn, _, set in
                let link = try standIn.value("CLIENT_IF")
                try await set(#"{"State":"online","Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)","IPv4":"10.0.0.2"}]}"#)
                let properties = try await Self.json(standIn, "get-properties")
                let services = try await Self.json(standIn, "get-services")
                #expect(properties["type"] as? String == realProperties["type"] as? String)
                #expect(services["type"] as? String == realServices["type"] as? String)
                let realManager = Self.types((realProperties["data"] as? [Any])?.first)
                for (key, type) in Self.types((properties["data"] as? [Any])?.first) {
                    #expect(realManager[key] == type, "Manager \(key): the stand-in says \(type), connmand \(realManager[key] ?? "nothing")")
                }
                let realService = Self.firstService(realServices), service = Self.firstService(services)
                let realTypes = Self.types(realService)
                for key in ["Type", "State", "Ethernet", "IPv4", "IPv6"] {
                    #expect(realTypes[key] != nil && Self.types(service)[key] == realTypes[key], "service \(key)")
                }
                for (key, type) in Self.types(service) where realTypes[key] != nil {
                    #expect(realTypes[key] == type, "service \(key): the stand-in says \(type), connmand \(realTypes[key]!)")
                }
                for nested in ["Ethernet", "IPv4"] {
                    let realNested = Self.types((realService[nested] as? [String: Any])?["data"])
                    for (key, type) in Self.types((service[nested] as? [String: Any])?["data"]) {
                        #expect(realNested[key] == type, "\(nested).\(key): the stand-in says \(type), connmand \(realNested[key] ?? "nothing")")
                    }
                }
            }
        }
    }

    @Test("a cellular service → Reachable via WWAN, IsWWAN, metered; a roaming one ready too, connectivity unverified, and in-process the same; Wi-Fi unmetered; OfflineMode → disabled")
    func cellularAndRoaming() async throws {
        try await Self.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF")
            try await set(#"{"State":"online","Services":[{"id":"cellular_1","Type":"cellular","State":"online","Roaming":false,"Interface":"\#(link)"}]}"#)
            try await Self.expectProperties([
                "Status": "i 1", "Flags": "u 262146", "InterfaceType": "s \"wwan\"", "Metered": "b true",
                "Backend": "s \"connman\"", "Source": "s \"connman\"", "Connectivity": "s \"full\"",
            ], after: "a cellular service online", reachd: reachd)
            try await set(#"{"State":"online","Services":[{"id":"wifi_1","Type":"wifi","State":"online","Roaming":true,"Interface":"\#(link)"}]}"#)
            try await Self.expectProperties([
                "Status": "i 2", "InterfaceType": "s \"wifi\"", "Metered": "b false",
            ], after: "a Wi-Fi service (Roaming is cellular's alone)", reachd: reachd)
            try await set(#"{"State":"ready","Services":[{"id":"cellular_1","Type":"cellular","State":"ready","Roaming":true,"Interface":"\#(link)"}]}"#)
            try await Self.expectProperties([
                "Status": "i 1", "InterfaceType": "s \"wwan\"", "Metered": "b true", "Connectivity": "s \"unknown\"",
            ], after: "a roaming cellular service, ready", reachd: reachd)
            // In-process (no reachd on any bus the app shares), the same engine reads ConnMan itself.
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent()
                .appendingPathComponent("reachctl").path
            // `ip netns exec` mounts the namespace's own /sys, where the engine reads its links'
            // carrier (nsenter --net keeps the machine's: every link would read as down).
            let inProcess = try await runTool("/usr/sbin/ip", ["netns", "exec", try namespaces.value("CLIENT_NETNS"), reachctl,
                                                              "--service", "in-process", "status", "--json"], environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": try namespaces.value("SYSTEM_BUS_ADDRESS"), "LANG": "C", "LC_ALL": "C"])
            #expect(inProcess.standardOutput.contains("\"backend\":\"connman\""), "\(inProcess.transcript)")
            #expect(inProcess.standardOutput.contains("\"interfaceType\":\"wwan\""), "\(inProcess.transcript)")
            try await set(#"{"State":"offline","OfflineMode":true,"Services":[]}"#)
            try await Self.expectProperties([
                "Status": "i 0", "UnsatisfiedReason": "s \"disabled\"", "Backend": "s \"connman\"",
            ], after: "OfflineMode", reachd: reachd)
        }
    }

    @Test("a Wi-Fi or cellular service's Strength grades LinkQuality, with the signal and ConnMan as its source in Details")
    func serviceStrengthGradesLinkQuality() async throws {
        try await Self.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF")
            try await set(#"{"State":"online","Services":[{"id":"wifi_1","Type":"wifi","State":"online","Strength":40,"Interface":"\#(link)"}]}"#)
            try await Self.expectProperties(["InterfaceType": "s \"wifi\"", "LinkQuality": "s \"moderate\""],
                                            after: "a Wi-Fi service at 40 %", reachd: reachd)
            let details = try await Real.property("Details", reachd)
            #expect(details.contains("\"link-signal\" y 40") && details.contains("\"link-signal-source\" s \"connman\""), "\(details)")
            try await set(#"{"State":"online","Services":[{"id":"cellular_1","Type":"cellular","State":"online","Strength":12,"Interface":"\#(link)"}]}"#)
            try await Self.expectProperties(["InterfaceType": "s \"wwan\"", "LinkQuality": "s \"minimal\""],
                                            after: "a cellular service at 12 %: another link, so at once", reachd: reachd)
        }
    }

    @Test("after a resume (logind's PrepareForSleep(false)) ConnMan is read again: a change whose signals were lost is published")
    func resumeReadsConnManAgain() async throws {
        try await Self.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF"), system = try namespaces.value("SYSTEM_BUS_ADDRESS")
            let ethernet = #"{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}"#
            try await set(#"{"State":"online","Services":[\#(ethernet)]}"#)
            try await Self.expectProperties(["Status": "i 2", "Backend": "s \"connman\""], after: "ethernet online", reachd: reachd)
            let logind = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"],
                                          environment: ["DBUS_SYSTEM_BUS_ADDRESS": system], unsetting: ["PYTHONPATH", "PYTHONHOME"])
            defer { logind.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.login1") {
                try await runTool("busctl", ["--address=\(system)", "status", "org.freedesktop.login1"]).succeeded
            }
            // While the machine "slept", ConnMan went into OfflineMode and its signals were lost.
            try await runToolChecked("busctl", ["--address=\(system)", "call", "net.connman", "/io/reachd/test/ConnManStandIn",
                                                "io.reachd.test.ConnManStandIn", "SetQuietly", "s",
                                                #"{"State":"offline","OfflineMode":true,"Services":[\#(ethernet)]}"#])
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await Real.property("Status", reachd) == "i 2", "nothing was announced, so reachd knows nothing yet")
            try await runToolChecked("busctl", [
                "--address=\(system)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.login1.Manager",
                "PrepareForSleep", "b", "1", "b", "false"])
            try await Self.expectProperties(["Status": "i 0", "UnsatisfiedReason": "s \"disabled\""],
                                            after: "the resume", reachd: reachd)
        }
    }

    @Test("a VPN service over ethernet, its tun carrying the default route → InterfaceType vpn, TransientConnection, underlay ethernet")
    func vpnOverItsUnderlay() async throws {
        try await Self.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF"), tun = try namespaces.value("TUN_IF")
            try await set(#"{"State":"online","Services":[{"id":"vpn_1","Type":"vpn","State":"ready","Interface":"\#(tun)"},{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}]}"#)
            try await namespaces.run("vpn-route-up")
            try await Self.expectProperties([
                "Status": "i 2", "Flags": "u 131075", "InterfaceType": "s \"vpn\"", "Interface": "s \"\(tun)\"",
                "UnderlyingInterfaceType": "s \"ethernet\"", "Backend": "s \"connman\"", "Source": "s \"connman\"",
            ], after: "the VPN up over ethernet", reachd: reachd)
            try await namespaces.run("vpn-route-down")
            try await set(#"{"State":"online","Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}]}"#)
            try await Self.expectProperties([
                "Status": "i 2", "Flags": "u 2", "InterfaceType": "s \"ethernet\"", "Interface": "s \"\(link)\"",
            ], after: "the VPN down", reachd: reachd)
        }
    }

    @Test("reachctl wait --level online waits while ConnMan connects and while it is ready (its check pending), exits 0 at online; a timeout names ConnMan's check")
    func waitForOnlineAcrossConnMansCheck() async throws {
        try await Self.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF")
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent()
                .appendingPathComponent("reachctl").path
            let environment = ["DBUS_SESSION_BUS_ADDRESS": reachd.session.address, "LANG": "C", "LC_ALL": "C"]
            try await set(#"{"State":"idle","Services":[{"id":"ethernet_1","Type":"ethernet","State":"configuration","Interface":"\#(link)"}]}"#)
            try await Self.expectProperties(["Backend": "s \"connman\"", "Status": "i 0"], after: "ethernet connecting", reachd: reachd)
            let (tool, arguments) = reachd.inItsNamespace(reachctl, ["wait", "--level", "online", "--timeout", "60"])
            let wait = try BackgroundTool(tool, arguments, environment: environment)
            defer { wait.stop(SIGKILL) }
            try await Task.sleep(for: .seconds(1))
            #expect(!wait.hasExited, "waits while ConnMan connects: \(wait.output)")

            try await set(#"{"State":"ready","Services":[{"id":"ethernet_1","Type":"ethernet","State":"ready","Interface":"\#(link)"}]}"#)
            try await Self.expectProperties(["Status": "i 2", "Connectivity": "s \"unknown\""], after: "ethernet ready", reachd: reachd)
            let (quickTool, quickArguments) = reachd.inItsNamespace(reachctl, ["wait", "--level", "online", "--timeout", "1"])
            let quick = try await runTool(quickTool, quickArguments, environment: environment)
            #expect(quick.status == 1, "ConnMan's check may still pass: not 5. \(quick.transcript)")
            #expect(quick.standardError.contains("waiting for ConnMan's online check (ConnMan says ready)"), "\(quick.transcript)")
            #expect(!quick.standardError.contains("is off"), "\(quick.transcript)")
            #expect(!wait.hasExited, "waits while ConnMan is ready: \(wait.output)")

            try await set(#"{"State":"online","Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}]}"#)
            #expect(try await wait.child.exit(timeout: .seconds(20)) == 0, "\(wait.output)\n\(reachd.standardError.suffix(2000))")
        }
    }
}
