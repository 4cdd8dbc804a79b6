import Foundation
import Glibc
import SystemConfiguration
import ReachdTestSupport
import Testing

/// The `SystemConfiguration` product (issue 32, contract 5 §1): code written for Apple's systems
/// (Tests/Fixtures/AppleSystemConfiguration/AppleCode), compiled unmodified, run where an app runs,
/// in a network namespace whose routes the test sets and where no reachd shares the namespace, so
/// the client library answers in-process; and Apple's contract for callbacks and contexts, held in
/// this process.
@Suite("SystemConfiguration: Apple's SCNetworkReachability code, unchanged, on Linux", .timeLimit(.minutes(3)))
struct SystemConfigurationTests {
    /// No bus at all: the library's automatic choice falls through to the engine in-process.
    static let noBuses = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/reachd-test/system_bus_socket", "REACHD_SERVICE": ""]
    static let unset = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]

    /// The fixture in `namespace` (nil: the tests' own), as an app there runs it.
    static func fixture(_ arguments: [String], in namespace: HostCauseNamespace?, environment: [String: String] = noBuses) throws -> ChildProcess {
        let command = (namespace.map { ["netns", "exec", $0.name] } ?? []) + [Executables.appleSystemConfiguration] + arguments
        return try ChildProcess(namespace == nil ? Executables.appleSystemConfiguration : "/usr/sbin/ip",
                                namespace == nil ? arguments : command, environment: environment, unsetting: unset)
    }

    static func lines(_ child: ChildProcess, _ prefix: String) -> [String] {
        child.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    /// `key=value` from one line of the fixture.
    static func field(_ key: String, _ line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    static func flags(_ line: String) -> UInt32? {
        field("flags", line).flatMap { UInt32($0.dropFirst(2), radix: 16) }
    }

    /// CLOCK_MONOTONIC, the clock the fixture stamps its lines with.
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    @Test("the Apple-style fixtures carry no Linux-only code")
    func fixturesHaveNoLinuxConditions() throws {
        let folder = Executables.packageRoot.appendingPathComponent("Tests/Fixtures/AppleSystemConfiguration")
        let files = try #require(FileManager.default.subpaths(atPath: folder.path)).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("AppleCode/Reachability.swift") && files.contains("AppleCode/AFNetworkReachabilityManager.swift"), "\(files)")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for condition in ["#if os(Linux)", "#if !os(Linux)", "canImport(Glibc)", "canImport(SystemConfiguration)"] {
                #expect(!text.contains(condition), "\(file) contains \(condition)")
            }
        }
    }

    @Test("the default route going and coming back reaches the Reachability- and AFNetworking-style clients within 1 s each way")
    func defaultRouteChangesReachEveryClientWithinOneSecond() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        let reachability = try Self.fixture(["reachability"], in: namespace)
        let afnetworking = try Self.fixture(["afnetworking"], in: namespace)
        defer {
            for client in [reachability, afnetworking] { client.stop(SIGKILL); client.removeOutput() }
        }
        let clients = [(reachability, "reachability "), (afnetworking, "afnetworking ")]
        func last(_ client: (ChildProcess, String)) -> String? { Self.lines(client.0, client.1).last }
        func transcript() -> String { clients.map { "\($0.1): \($0.0.standardOutput)\($0.0.standardError)" }.joined(separator: "\n") }
        try await eventually(timeout: .seconds(20), "both clients report the default route reachable:\n\(transcript())") {
            clients.allSatisfy { last($0).flatMap(Self.flags) == 0x2 }
        }
        #expect(last(clients[0])?.contains("connection=WiFi mainQueue=true") == true, "\(transcript())")
        #expect(last(clients[1])?.contains("status=2 flags=0x2 main=true") == true, "\(transcript())")
        // The target's description carries the context's own (copyDescription).
        #expect(last(clients[0])?.contains("context = -R") == true, "\(transcript())")

        // `ip -batch` already running, reading commands from a FIFO: the clock starts when the command
        // is written, not before an `ip` process is spawned (which alone took over 300 ms on a loaded
        // machine).
        let routes = try RouteCommands(namespace: namespace.name)
        defer { routes.close() }
        for (step, command, expected) in [
            ("default route deleted", "route del default", UInt32(0)),
            ("default route back", "route add default via 192.0.2.1", UInt32(0x2)),
        ] {
            let counts = clients.map { Self.lines($0.0, $0.1).count }
            let before = Self.monotonicNanoseconds()
            try routes.send(command)
            try await eventually(timeout: .seconds(10), "\(step): each client reports flags \(expected):\n\(transcript())") {
                zip(clients, counts).allSatisfy { client, count in
                    Self.lines(client.0, client.1).dropFirst(count).contains { Self.flags($0) == expected }
                }
            }
            for (client, count) in zip(clients, counts) {
                let line = try #require(Self.lines(client.0, client.1).dropFirst(count).first { Self.flags($0) == expected })
                let stamp = try #require(Self.field("t", line).flatMap { UInt64($0) })
                let milliseconds = Double(stamp - before) / 1_000_000
                #expect(milliseconds < 1000, "\(step): \(client.1)heard it after \(milliseconds) ms")
            }
        }
        let afnStatuses = Self.lines(afnetworking, "afnetworking ").compactMap { Self.field("status", $0) }
        #expect(afnStatuses == ["2", "0", "2"], "one status block call per change: \(afnStatuses)")
    }

    @Test("a scheduled target nobody holds goes on calling back, as configd's: Kickstarter's global target hears the default route go and come back, and, an address target, nothing on scheduling")
    func aScheduledTargetNobodyHoldsLives() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        let app = try Self.fixture(["unheld"], in: namespace)
        defer { app.stop(SIGKILL); app.removeOutput() }
        func transcript() -> String { app.standardOutput + app.standardError }
        try await eventually(timeout: .seconds(20), "the first answer:\n\(transcript())") {
            Self.lines(app, "unheld-answered ").last.flatMap(Self.flags) == 0x2
        }
        // configd takes an address target's first answer as the state to compare with: no callback.
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.lines(app, "unheld flags=").isEmpty, "no callback on scheduling an address target:\n\(transcript())")
        let routes = try RouteCommands(namespace: namespace.name)
        defer { routes.close() }
        for (step, command, expected) in [("default route deleted", "route del default", UInt32(0)),
                                          ("default route back", "route add default via 192.0.2.1", UInt32(0x2))] {
            let count = Self.lines(app, "unheld flags=").count
            try routes.send(command)
            try await eventually(timeout: .seconds(10), "\(step): the target nobody holds calls back with \(expected):\n\(transcript())") {
                Self.lines(app, "unheld flags=").dropFirst(count).contains { Self.flags($0) == expected }
            }
        }
    }

    @Test("import SystemConfiguration alone brings the socket types; SCNetwork.h's legacy names and Darwin's memberwise sockaddr_in compile and answer")
    func legacyNamesAndImportAlone() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        let app = try Self.fixture(["legacy"], in: namespace)
        defer { app.removeOutput() }
        let status = try await app.exit(timeout: .seconds(30))
        #expect(status == 0 && Self.lines(app, "legacy ").last == "legacy connected=true guide=true",
                "\(app.standardOutput)\(app.standardError)")
    }

    @Test("a global function, a local function and a closure literal are each a callback in Swift 5 mode with warnings as errors, as on Apple's systems")
    func callbacksCompileInSwiftFiveMode() async throws {
        // The fixture's build is the test (a warning fails it); running it shows each was accepted.
        let result = try await runTool(Executables.callbackSwiftFive, [])
        #expect(result.status == 0 && result.standardOutput == "callbacks set=3\n", "\(result.transcript)")
    }

    @Test("a loopback name is reachable and a local address, a name that does not resolve is not reachable, through GetFlags and the callback")
    func loopbackAndUnresolvableNames() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        for (host, check) in [
            ("localhost", { (flags: UInt32) in flags & 0x2 != 0 && flags & 0x10000 != 0 }),
            ("nosuchname.test", { (flags: UInt32) in flags & 0x2 == 0 }),
        ] {
            let getFlags = try Self.fixture(["getflags", "--host", host], in: namespace)
            defer { getFlags.removeOutput() }
            #expect(try await getFlags.exit(timeout: .seconds(20)) == 0, "\(getFlags.standardOutput)\(getFlags.standardError)")
            let line = try #require(Self.lines(getFlags, "getflags ").first, "\(getFlags.standardOutput)\(getFlags.standardError)")
            #expect(line.hasPrefix("getflags ok=true "), "\(host): \(line)")
            #expect(Self.flags(line).map(check) == true, "\(host): \(line)")

            let monitor = try Self.fixture(["afnetworking", "--host", host], in: namespace)
            defer { monitor.stop(SIGKILL); monitor.removeOutput() }
            try await eventually(timeout: .seconds(20), "\(host): the callback reports:\n\(monitor.standardOutput)\(monitor.standardError)") {
                !Self.lines(monitor, "afnetworking ").isEmpty
            }
            let first = try #require(Self.lines(monitor, "afnetworking ").first)
            #expect(Self.flags(first).map(check) == true, "\(host): \(first)")
        }
    }

    @Test("CreateWithAddress: :: is the general routing state, any other address the route to it (on the link: direct; own: local)")
    func addressIsTheRouteToIt() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        for (address, expected, what) in [
            ("::", UInt32(0x2), "the general routing state (the IPv4 default route)"),
            (HostCauseNamespace.timedOutAddress, 0x2, "beyond the gateway: Reachable"),
            (HostCauseNamespace.silentNeighbour, 0x20002, "on the link: Reachable, IsDirect"),
            ("192.0.2.2", 0x30002, "the namespace's own address: Reachable, IsLocalAddress, IsDirect"),
            ("127.0.0.1", 0x30002, "loopback: Reachable, IsLocalAddress, IsDirect"),
            (HostCauseNamespace.unroutedAddress, 0, "a route of type unreachable: not reachable"),
            ("2001:db8::1", 0, "no IPv6 route: not reachable"),
        ] {
            let getFlags = try Self.fixture(["getflags", "--address", address], in: namespace)
            defer { getFlags.removeOutput() }
            #expect(try await getFlags.exit(timeout: .seconds(20)) == 0, "\(getFlags.standardOutput)\(getFlags.standardError)")
            let line = Self.lines(getFlags, "getflags ").first ?? getFlags.standardOutput + getFlags.standardError
            #expect(line.hasPrefix("getflags ok=true ") && Self.flags(line) == expected, "\(address), \(what): \(line)")
        }
    }

    @Test("GetFlags on a name whose resolver never answers returns within about a second: false, kSCStatusReachabilityUnknown; its callback waits for an answer")
    func getFlagsOnANameIsBounded() async throws {
        guard geteuid() == 0 else { throw TestFailure("this test makes a network namespace and needs root: run it as root (Scripts/test does)") }
        // The resolver is 192.0.2.99: on the link, but nobody has it, so every query goes unanswered.
        let namespace = "rsc-dns-\(getpid())"
        let configuration = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        try "nameserver 192.0.2.99\n".write(toFile: configuration + "/resolv.conf", atomically: false, encoding: .utf8)
        try "127.0.0.1 localhost\n".write(toFile: configuration + "/hosts", atomically: false, encoding: .utf8)
        defer {
            (try? ChildProcess("/usr/sbin/ip", ["netns", "del", namespace]))?.waitBlocking()
            try? FileManager.default.removeItem(atPath: configuration)
            rmdir("/etc/netns")  // only when no other test's namespace still has files there
        }
        try await runToolChecked("/bin/sh", ["-c", """
            set -eu
            ip netns add "$0"
            ip -n "$0" link set lo up
            ip -n "$0" link add rv0 type veth peer name rv1
            ip -n "$0" link set rv1 up
            ip -n "$0" address add 192.0.2.2/24 dev rv0
            ip -n "$0" link set rv0 up
            ip -n "$0" route add default via 192.0.2.1
            """, namespace])
        let started = ContinuousClock.now
        let getFlags = try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, Executables.appleSystemConfiguration,
                                                         "getflags", "--host", "slow.example"],
                                        environment: Self.noBuses, unsetting: Self.unset)
        defer { getFlags.removeOutput() }
        #expect(try await getFlags.exit(timeout: .seconds(20)) == 0, "\(getFlags.standardOutput)\(getFlags.standardError)")
        let elapsed = ContinuousClock.now - started
        let line = try #require(Self.lines(getFlags, "getflags ").first, "\(getFlags.standardOutput)\(getFlags.standardError)")
        #expect(line.hasPrefix("getflags ok=false flags=0x0 error=4001 "), "\(line)")
        let milliseconds = try #require(Self.field("ms", line).flatMap { Int($0) })
        #expect(milliseconds >= 1000 && milliseconds < 1500, "GetFlags took \(milliseconds) ms")
        // The lookup itself goes on for glibc's 2 × 5 s (attempts × timeout): an app held by it
        // would take 10 s; starting it in the namespace takes seconds only on a machine kept busy.
        #expect(elapsed < .seconds(8), "the app was not held by the lookup still going: \(elapsed)")

        // Scheduled, the same name gets no callback while it resolves: Unknown is no answer.
        let monitor = try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, Executables.appleSystemConfiguration,
                                                        "afnetworking", "--host", "slow.example"],
                                       environment: Self.noBuses, unsetting: Self.unset)
        defer { monitor.stop(SIGKILL); monitor.removeOutput() }
        try await Task.sleep(for: .milliseconds(1500))
        #expect(monitor.poll() == nil && Self.lines(monitor, "afnetworking ").isEmpty, "\(monitor.standardOutput)\(monitor.standardError)")
    }

    @Test("a metered modem stand-in (NetworkManager's gsm connection on the uplink wwan0) gives .isWWAN, and Reachability says Cellular")
    func modemGivesWWAN() async throws {
        guard geteuid() == 0 else { throw TestFailure("this test makes a network namespace and needs root: run it as root (Scripts/test does)") }
        // The uplink is wwan0, the IP interface of python-dbusmock's modem, so that NetworkManager
        // and the kernel's routes describe one path, as on a laptop with a modem.
        let namespace = "rsc-wwan-\(getpid())"
        try await runToolChecked("/bin/sh", ["-c", """
            set -eu
            ip netns add "$0"
            ip -n "$0" link set lo up
            ip -n "$0" link add wwan0 type veth peer name wwanpeer
            ip -n "$0" link set wwanpeer up
            ip -n "$0" address add 192.0.2.2/24 dev wwan0
            ip -n "$0" link set wwan0 up
            ip -n "$0" route add default via 192.0.2.1
            """, namespace])
        defer { (try? ChildProcess("/usr/sbin/ip", ["netns", "del", namespace]))?.waitBlocking() }
        try await withPrivateBus(.system) { system in
            let networkManager = try await NetworkManagerMock(on: system)
            defer { networkManager.stop() }
            try await networkManager.addModem()
            try await networkManager.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/gsm0")
            try await networkManager.setManager("PrimaryConnectionType", "s", "gsm")
            try await networkManager.setManager("Metered", "u", "1")
            // No reachd on that bus, none activatable: the library's engine runs in the app, over this NetworkManager.
            let app = try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, Executables.appleSystemConfiguration, "reachability"],
                                       environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "REACHD_SERVICE": ""], unsetting: Self.unset)
            defer { app.stop(SIGKILL); app.removeOutput() }
            try await eventually(timeout: .seconds(20), "the app hears WWAN:\n\(app.standardOutput)\(app.standardError)") {
                Self.lines(app, "reachability ").last.flatMap(Self.flags).map { $0 & 0x40000 != 0 } == true
            }
            let line = try #require(Self.lines(app, "reachability ").last)
            #expect(Self.flags(line) == 0x40002, "reachable and WWAN: \(line)")
            #expect(line.contains("connection=Cellular"), "\(line)")
        }
    }

    @Test("with reachd on the session bus, a name target is a host monitor of that reachd, released when the app goes")
    func answeredByTheSessionReachd() async throws {
        try await withPrivateBus(.system) { system in
            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: system.address) { _ in
                    func monitorCount() async throws -> String {
                        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", "io.reachd.Reachability1",
                                                            "/io/reachd/Reachability1", "io.reachd.Reachability1", "MonitorCount"])
                            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                    #expect(try await monitorCount() == "u 0")
                    let app = try Self.fixture(["afnetworking", "--host", "localhost"], in: nil,
                                               environment: ["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_SYSTEM_BUS_ADDRESS": system.address,
                                                             "REACHD_SERVICE": ""])
                    defer { app.stop(SIGKILL); app.removeOutput() }
                    try await eventually(timeout: .seconds(20), "the app hears localhost:\n\(app.standardOutput)\(app.standardError)") {
                        Self.lines(app, "afnetworking ").last.flatMap(Self.flags) == 0x30002
                    }
                    #expect(try await monitorCount() == "u 1", "the target is reachd's host monitor")
                    app.stop(SIGTERM)
                    try await eventually(timeout: .seconds(10), "reachd lets the monitor go with the app") { try await monitorCount() == "u 0" }
                }
            }
        }
    }

    @Test("1,000 SetCallback set/clear cycles on a name target, each handed its answer, with route changes in flight: no callback after clearing returns, every retain released")
    func setAndClearStress() async throws {
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        let routes = try RouteCommands(namespace: namespace.name)
        defer { routes.close() }
        // A name target: each new callback is handed the answer the target has (an address target
        // would wait for a change), so callbacks race every clearing.
        let stress = try Self.fixture(["stress", "1000", "--host", "localhost"], in: namespace)
        defer { stress.stop(SIGKILL); stress.removeOutput() }
        var flips = 0
        while stress.poll() == nil && flips < 20_000 {
            try routes.send(flips % 2 == 0 ? "route del default" : "route add default via 192.0.2.1")
            flips += 1
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(try await stress.exit(timeout: .seconds(60)) == 0, "\(stress.standardOutput)\(stress.standardError)")
        let line = try #require(Self.lines(stress, "stress ").first, "\(stress.standardOutput)\(stress.standardError)")
        #expect(Self.field("cycles", line) == "1000", "\(line)")
        #expect(Self.field("late", line) == "0", "no callback after SetCallback(target, nil, nil) returned: \(line)")
        #expect(Self.field("retains", line) == "1000" && Self.field("releases", line) == "1000", "\(line)")
        #expect(Self.field("alive", line) == "0", "every context object freed: \(line)")
        #expect((Self.field("callbacks", line).flatMap { Int($0) } ?? 0) > 100, "callbacks were in flight: \(line) after \(flips) route changes")
    }

    @Test("callbacks on DispatchQueue.main fulfil a test's expectation; the context is retained once and released once per replacement, clearing and deallocation; a scheduled target lives until unscheduled")
    func mainQueueCallbackAndBalancedContext() async throws {
        let first = ContextProbe()
        let second = ContextProbe()
        // A name target: it calls back with its first answer (an address target, only at changes).
        var target = SCNetworkReachabilityCreateWithName(nil, "localhost")
        #expect(target != nil && SCError() == 0)
        var context = first.context()
        #expect(SCNetworkReachabilitySetCallback(target!, ContextProbe.callback, &context))
        #expect(first.counts == (1, 0))
        #expect(SCNetworkReachabilitySetDispatchQueue(target!, .main))
        let flags = try await first.firstFlags()
        #expect(flags.contains([.reachable, .isLocalAddress]), "localhost is this machine: \(flags)")

        var replacement = second.context()
        #expect(SCNetworkReachabilitySetCallback(target!, ContextProbe.callback, &replacement))
        #expect(first.counts == (1, 1) && second.counts == (1, 0), "replacing releases the old context")
        #expect(try await second.firstFlags() == flags, "a new callback gets the answer the target has")
        #expect(SCNetworkReachabilitySetCallback(target!, nil, nil))
        #expect(second.counts == (1, 1), "clearing releases")

        var third = first.context()
        #expect(SCNetworkReachabilitySetCallback(target!, ContextProbe.callback, &third))
        #expect(first.counts == (2, 1))
        // Scheduled, it lives whether or not the app holds it, as configd's does: letting go of it
        // frees nothing and releases nothing.
        weak let scheduled = target
        target = nil
        try await Task.sleep(for: .milliseconds(200))
        do {
            let held = try #require(scheduled, "a scheduled target was freed while scheduled")
            #expect(first.counts == (2, 1), "nothing released while the target is scheduled")
            #expect(SCNetworkReachabilitySetDispatchQueue(held, nil))
        }
        // Unscheduled, it goes. A callback running on the main queue holds the target until it
        // returns, as Core Foundation's does: the release comes with the deallocation, whenever that is.
        try await eventually(timeout: .seconds(5), "the target's deallocation releases: \(first.counts)") { first.counts == (2, 2) }
        #expect(scheduled == nil, "an unscheduled target nobody holds is freed")
    }

    @Test("a target scheduled on a thread's own run loop (CFRunLoopGetCurrent, CFRunLoopRun) calls back on that thread; unscheduling lets the loop return")
    func threadRunLoop() async throws {
        let target = try #require(SCNetworkReachabilityCreateWithName(nil, "localhost"))
        let probe = RunLoopProbe()
        var context = SCNetworkReachabilityContext(version: 0, info: Unmanaged.passUnretained(probe).toOpaque(),
                                                   retain: nil, release: nil, copyDescription: nil)
        #expect(SCNetworkReachabilitySetCallback(target, { _, flags, info in
            Unmanaged<RunLoopProbe>.fromOpaque(info!).takeUnretainedValue().heard(flags)
        }, &context))
        let thread = Thread {
            probe.started(on: CFRunLoopGetCurrent())
            SCNetworkReachabilityScheduleWithRunLoop(target, CFRunLoopGetCurrent(), CFRunLoopMode.defaultMode.rawValue)
            CFRunLoopRun()
            probe.loopReturned()
        }
        thread.start()
        try await eventually(timeout: .seconds(20), "a callback on the run loop's thread: \(probe.state)") { probe.state.flags != nil }
        #expect(probe.state.onLoopThread, "\(probe.state)")
        #expect(probe.state.flags?.contains([.reachable, .isLocalAddress]) == true, "\(probe.state)")
        #expect(SCNetworkReachabilityUnscheduleFromRunLoop(target, try #require(probe.runLoop), CFRunLoopMode.defaultMode.rawValue))
        try await eventually(timeout: .seconds(5), "CFRunLoopRun() returns once nothing is scheduled") { probe.state.returned }
        SCNetworkReachabilitySetCallback(target, nil, nil)
    }

    @Test("bad arguments are refused with SCError, never a crash")
    func badArgumentsAreRefused() {
        var unknownFamily = sockaddr()
        unknownFamily.sa_family = sa_family_t(AF_UNIX)
        #expect(SCNetworkReachabilityCreateWithAddress(nil, &unknownFamily) == nil)
        #expect(Int(SCError()) == kSCStatusInvalidArgument)
        #expect(String(cString: SCErrorString(SCError())) == "Invalid argument!")
        #expect(SCNetworkReachabilityCreateWithName(nil, "") == nil)
        #expect(SCNetworkReachabilityCreateWithName(nil, "bad..name") == nil, "no host name: no target")
        #expect(Int(SCError()) == kSCStatusInvalidArgument)
        #expect(SCNetworkReachabilityCreateWithAddressPair(nil, nil, nil) == nil)
        let target = SCNetworkReachabilityCreateWithName(nil, "localhost")!
        var context = SCNetworkReachabilityContext(version: 1, info: nil, retain: nil, release: nil, copyDescription: nil)
        #expect(!SCNetworkReachabilitySetCallback(target, { _, _, _ in }, &context))
        #expect(SCNetworkReachabilitySetDispatchQueue(target, DispatchQueue(label: "q")))
        #expect(!SCNetworkReachabilityScheduleWithRunLoop(target, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode.rawValue))
        #expect(SCNetworkReachabilitySetDispatchQueue(target, nil))
        #expect(!SCNetworkReachabilityUnscheduleFromRunLoop(target, CFRunLoopGetMain(), CFRunLoopMode.commonModes.rawValue))
        #expect(Int(SCError()) == kSCStatusInvalidArgument)
    }
}
