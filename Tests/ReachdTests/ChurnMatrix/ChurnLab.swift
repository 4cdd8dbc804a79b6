import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A row of the churn matrix (contract 6, §2): where reachd's answer comes from.
enum ChurnSource: String, Sendable, CustomStringConvertible {
    case networkManager = "NetworkManager", networkd = "systemd-networkd", connman = "ConnMan", kernel = "none"
    var description: String { rawValue }

    /// The harness that makes its namespaces: `none` is networkd-netns's, with networkd stopped
    /// for good (a system bus where no network daemon runs, routes set by no one any more).
    var harness: String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/harness")
        switch self {
        case .networkManager: return folder.appendingPathComponent("nm-netns").path
        case .networkd, .kernel: return folder.appendingPathComponent("networkd-netns").path
        case .connman: return folder.appendingPathComponent("connman-netns").path
        }
    }

    /// NetworkManager checks (`--check`: its check URI on the peer, served by the lab).
    var upOptions: [String] { self == .networkManager ? ["--no-dns", "--check"] : [] }

    /// reachd's `Backend` while this source runs.
    var backend: String {
        switch self {
        case .networkManager: return "networkmanager"
        case .networkd: return "systemd-networkd"
        case .connman: return "connman"
        case .kernel: return "netlink"
        }
    }

    /// The harness's actions that stop (SIGTERM), crash (SIGKILL) and start the daemon.
    var stop: String { ["NetworkManager": "stop-nm", "systemd-networkd": "stop-networkd", "ConnMan": "stop-connman"][rawValue] ?? "" }
    var crash: String { ["NetworkManager": "kill-nm", "systemd-networkd": "kill-networkd", "ConnMan": "kill-connman"][rawValue] ?? "" }
    var start: String { ["NetworkManager": "start-nm", "systemd-networkd": "start-networkd", "ConnMan": "start-connman"][rawValue] ?? "" }

    /// Which check says online: NetworkManager's and ConnMan's own; reachd's (`[connectivity] uri`) otherwise.
    var reachdChecks: Bool { self == .networkd || self == .kernel }
}

/// What one cell measured.
struct ChurnCellResult: Sendable, CustomStringConvertible {
    var cell: String
    /// From the daemon's own answer (or reachd's name, where the daemon answered first) to reachd's right answer.
    var latency: Duration?
    var idleCalls: Int?
    var waitExit: Int32?
    var unownedCalls = 0
    var checkConnectivity = "", connectivity = ""

    var description: String {
        let latencyText = latency.map { String(format: "%.3f s", Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) } ?? "-"
        return "\(cell) | answer \(latencyText) | idle calls \(idleCalls.map(String.init) ?? "-") | wait exit \(waitExit.map(String.init) ?? "-")"
            + " | calls to unowned names \(unownedCalls) | CheckConnectivity \(checkConnectivity) / Connectivity \(connectivity)"
    }
}

/// One source's namespaces, private system bus, daemon, check server and bus monitor, shared by
/// that source's cells (each cell starts from the state the one before left, as a device's life
/// does: boot, then restarts and crashes), with reachd in the client namespace on a session bus
/// of the lab's.
final class ChurnLab: Sendable {
    let source: ChurnSource
    let directory: String
    let environment: [String: String]
    let session: PrivateBus
    private let checkServer: ChildProcess?
    /// dbus-monitor on the private system bus, from before reachd's first start: what reachd
    /// called, and the bus's ServiceUnknown answers when the name had no owner.
    private let systemMonitor: ChildProcess
    static let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path

    private init(source: ChurnSource, directory: String, environment: [String: String], session: PrivateBus,
                 checkServer: ChildProcess?, systemMonitor: ChildProcess) {
        self.source = source
        self.directory = directory
        self.environment = environment
        self.session = session
        self.checkServer = checkServer
        self.systemMonitor = systemMonitor
    }

    func value(_ key: String) throws -> String {
        guard let value = environment[key] else { throw TestFailure("\(source.harness) wrote no \(key) in \(directory)/env") }
        return value
    }

    var systemBus: String { environment["SYSTEM_BUS_ADDRESS"] ?? "" }

    /// Runs `body` with the lab up, and always takes it down.
    static func with(_ source: ChurnSource, _ body: (ChurnLab) async throws -> Void) async throws {
        guard geteuid() == 0 else {
            throw TestFailure("the churn matrix needs root (network namespaces, real daemons): run the tests with sudo -E Scripts/test")
        }
        for tool in ["/usr/bin/strace", "/usr/bin/dbus-monitor", "/usr/bin/busctl", source.harness] where access(tool, X_OK) != 0 {
            throw TestFailure("\(tool) is missing: Scripts/test installs what the suite needs (Scripts/lib/common.sh)")
        }
        // Short: the bus socket's path must fit a sockaddr_un.
        let directory = "/tmp/rcx-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer {
            if let down = try? ChildProcess(source.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await runTool(source.harness, source.upOptions + ["up", directory],
                                   environment: ["CONNMAN_NETNS_TIMEOUT": "90"], timeout: .seconds(120))
        guard up.succeeded else { throw TestFailure("\(source.harness) up failed: \(up.transcript)") }
        var environment: [String: String] = [:]
        for line in try String(contentsOfFile: directory + "/env", encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let systemBus = environment["SYSTEM_BUS_ADDRESS"] ?? ""
        let monitor = try ChildProcess("/usr/bin/dbus-monitor", ["--address", systemBus])
        defer { monitor.stop(SIGKILL); monitor.removeOutput() }
        try await eventually(timeout: .seconds(10), "dbus-monitor watches \(systemBus): \(monitor.standardError)") {
            monitor.standardOutput.contains("member=NameAcquired")
        }
        let checkServer = try serveCheck(source, directory: directory, environment: environment)
        defer { checkServer?.stop(SIGKILL); checkServer?.removeOutput() }
        if source == .kernel { try await runToolChecked(source.harness, ["stop-networkd", directory], timeout: .seconds(60)) }
        try await withPrivateBus { session in
            let lab = ChurnLab(source: source, directory: directory, environment: environment, session: session,
                               checkServer: checkServer, systemMonitor: monitor)
            try await body(lab)
        }
    }

    /// The check's server on the peer: NetworkManager's URI answering its expected response;
    /// reachd's own (networkd, none) answering NetworkManager's default one. ConnMan's runs already.
    private static func serveCheck(_ source: ChurnSource, directory: String, environment: [String: String]) throws -> ChildProcess? {
        let peer = environment["PEER_NETNS"] ?? "", address = environment["PEER_ADDR"] ?? ""
        let body: String
        switch source {
        case .connman: return nil
        case .networkManager: body = environment["CHECK_RESPONSE"] ?? "reachd-online"
        case .networkd, .kernel: body = "NetworkManager is online"
        }
        let www = directory + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try body.write(toFile: www + "/check", atomically: true, encoding: .utf8)
        return try ChildProcess("/usr/sbin/ip", ["netns", "exec", peer, "/usr/bin/python3", "-m", "http.server", "8080",
                                                 "--bind", address, "--directory", www],
                                unsetting: ["PYTHONPATH", "PYTHONHOME"])
    }

    func harness(_ action: String) async throws {
        try await runToolChecked(source.harness, [action, directory], timeout: .seconds(120))
    }

    /// The harness's action started, not waited for: its daemon's answer and reachd's are
    /// watched while it runs (`start-*` returns only once the daemon is on the bus).
    func startHarness(_ action: String) throws -> ChildProcess {
        try ChildProcess(source.harness, [action, directory])
    }

    /// The client's link as at boot, before any daemon configured it: up, with no address or route.
    func unconfigureLink() async throws {
        let namespace = try value("CLIENT_NETNS"), link = try value("CLIENT_IF")
        try await runToolChecked("/usr/sbin/ip", ["-n", namespace, "route", "flush", "dev", link])
        try await runToolChecked("/usr/sbin/ip", ["-n", namespace, "address", "flush", "dev", link])
    }

    var reachdArguments: [String] {
        source.reachdChecks ? ["--connectivity-uri", "http://\(environment["PEER_ADDR"] ?? ""):8080/check"] : []
    }

    func startReachd() async throws -> ReachdProcess {
        let reachd = try ReachdProcess(session: session, systemBus: systemBus, network: .named(try value("CLIENT_NETNS")),
                                       arguments: reachdArguments)
        try await reachd.waitUntilServing(timeout: .seconds(20))
        return reachd
    }

    /// `reachctl wait --level online` in reachd's namespace, from the cell's beginning.
    func startWait(_ reachd: ReachdProcess) throws -> ChildProcess {
        let (tool, arguments) = reachd.inItsNamespace(Self.reachctl, ["wait", "--level", "online", "--timeout", "90"])
        return try ChildProcess(tool, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": session.address, "LANG": "C", "LC_ALL": "C"])
    }

    /// Until `wait` has looked (it is on reachd's bus, or it has already answered): the cell's
    /// change comes after its beginning, not in a race with reachctl's start.
    func waitHasStarted(_ wait: ChildProcess) async throws {
        try await eventually(timeout: .seconds(20), "reachctl wait (pid \(wait.pid)) is on the bus: \(wait.standardError)") {
            if wait.poll() != nil { return true }
            let list = try await runToolChecked("busctl", ["--address=\(session.address)", "list", "--unique", "--no-legend"]).standardOutput
            return list.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count > 1 && fields[1] == "\(wait.pid)"
            }
        }
    }

    func reachdProperties(_ names: [String]) async throws -> [String] {
        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                            ReachdProcess.path, ReachdProcess.interface] + names)
            .standardOutput.split(separator: "\n").map(String.init)
    }

    /// reachd's answer is right: Reachable over the client's link, from this source (or, with
    /// `backend`, another one).
    func reachdRight(backend: String? = nil) async -> Bool {
        guard let seen = try? await reachdProperties(["Status", "Backend", "Interface"]) else { return false }
        return seen == ["i 2", "s \"\(backend ?? source.backend)\"", "s \"\(environment["CLIENT_IF"] ?? "")\""]
    }

    /// The daemon's own answer is that same one: NetworkManager connected with its check full,
    /// networkd online, ConnMan online. (none: the kernel's routes, always there.)
    /// `daemon`: another source's daemon on this lab's bus (networkd where none ran).
    func daemonRight(_ daemon: ChurnSource? = nil) async -> Bool {
        func read(_ arguments: [String]) async -> String {
            (try? await runTool("busctl", ["--address=\(systemBus)"] + arguments, timeout: .seconds(10)).standardOutput) ?? ""
        }
        switch daemon ?? source {
        case .networkManager:
            return await read(["get-property", "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                               "org.freedesktop.NetworkManager", "State", "Connectivity"]) == "u 70\nu 4\n"
        case .networkd:
            return await read(["get-property", "org.freedesktop.network1", "/org/freedesktop/network1",
                               "org.freedesktop.network1.Manager", "OnlineState"]).contains("\"online\"")
        case .connman:
            return await read(["call", "net.connman", "/", "net.connman.Manager", "GetProperties"]).contains("\"State\" s \"online\"")
        case .kernel:
            return true
        }
    }

    /// Watches both answers until reachd's is right (`reachdBackend`: the source it should name),
    /// and returns how long after the daemon's own it came (zero when reachd was first), or
    /// after `since` where the daemon answered before the cell began.
    func latency(reachdBackend: String? = nil, daemonAnswersAt since: ContinuousClock.Instant? = nil,
                 daemon: ChurnSource? = nil, timeout: Duration = .seconds(90)) async throws -> Duration {
        var daemonAt = since
        // When the last read that found reachd not yet right began: reachd was late at least
        // until then. The read that finds it right ends a round of the test's own polling later,
        // which on a busy machine is itself hundreds of milliseconds and is not reachd's.
        var lastWrongRead: ContinuousClock.Instant?
        let deadline = PatientDeadline(timeout: timeout)
        while true {
            let now = ContinuousClock.now
            if daemonAt == nil, await daemonRight(daemon) { daemonAt = now }
            let reading = ContinuousClock.now
            if await reachdRight(backend: reachdBackend) {
                // Reachd right before the daemon's own answer, or at the first read after it: it
                // was not late. Otherwise from the round that saw the daemon right to the last
                // read that still saw reachd wrong.
                guard let daemonAt, let lastWrongRead, lastWrongRead > daemonAt else { return .zero }
                return lastWrongRead - daemonAt
            }
            lastWrongRead = reading
            guard !deadline.hasPassed else {
                let seen = (try? await reachdProperties(["Status", "Backend", "Interface", "UnsatisfiedReason"])) ?? []
                throw TestFailure("reachd's answer not right after \(deadline.account) (daemon's own: \(daemonAt == nil ? "not yet" : "right")): \(seen)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// reachd's unique names on the system bus (one per run of it), by its pid.
    func systemBusNames(of reachd: ReachdProcess) async throws -> Set<String> {
        var names: Set<String> = []
        try await eventually(timeout: .seconds(10), "reachd (pid \(reachd.pid)) is on the system bus") {
            let list = try await runToolChecked("busctl", ["--address=\(systemBus)", "list", "--unique", "--no-legend"]).standardOutput
            for line in list.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 1, fields[1] == "\(reachd.pid)" { names.insert(String(fields[0])) }
            }
            return !names.isEmpty
        }
        return names
    }

    /// How far the system bus's monitor has written: a cell counts what comes after.
    var monitorMark: Int { systemMonitor.standardOutput.utf8.count }

    /// Method calls from `names` to a name nobody owned, since `mark`: the bus answers each with
    /// ServiceUnknown (no name here is activatable). Each as the call it answered.
    func unownedCalls(by names: Set<String>, since mark: Int) -> [String] {
        let lines = String(decoding: systemMonitor.standardOutput.utf8.dropFirst(mark), as: UTF8.self).split(separator: "\n").map(String.init)
        func field(_ name: String, _ line: String) -> String? {
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: ";")) }
        }
        // "method call time=… sender=:1.6 -> destination=org.freedesktop.NetworkManager serial=14 path=…; interface=…; member=GetAll"
        var calls: [String: String] = [:]
        for line in lines where line.hasPrefix("method call ") {
            if let sender = field("sender", line), names.contains(sender), let serial = field("serial", line) {
                calls[sender + "/" + serial] = "\(field("destination", line) ?? "?") \(field("interface", line) ?? "?").\(field("member", line) ?? "?")"
            }
        }
        return lines.compactMap { line in
            guard line.hasPrefix("error "), line.contains("org.freedesktop.DBus.Error.ServiceUnknown"),
                  let destination = field("destination", line), names.contains(destination) else { return nil }
            return calls[destination + "/" + (field("reply_serial", line) ?? "")] ?? line
        }
    }

    /// strace -c -f of reachd over `seconds`, once the network has been quiet for 2 s: its system calls.
    func idleCalls(_ reachd: ReachdProcess, seconds: Int = 10) async throws -> Int {
        try await Task.sleep(for: .seconds(2))
        let output = directory + "/strace.\(reachd.pid).\(UUID().uuidString.prefix(4))"
        let strace = try await runTool("/usr/bin/timeout", ["-s", "INT", "\(seconds)", "/usr/bin/strace", "-c", "-f", "-o", output,
                                                            "-p", "\(reachd.pid)"], timeout: .seconds(seconds + 20))
        guard strace.status == 124, strace.standardError.contains("Process \(reachd.pid) attached") else {
            throw TestFailure("strace did not watch reachd (pid \(reachd.pid)) for the whole \(seconds) s: \(strace.transcript)")
        }
        let table = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // No table at all: no call. Otherwise the total line: % time, seconds, usecs/call, calls, [errors], "total".
        guard let total = table.split(separator: "\n").last(where: { $0.hasSuffix(" total") }) else { return 0 }
        let fields = total.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 5, let calls = Int(fields[3]) else { throw TestFailure("strace's table has no total: \(table)") }
        if calls != 0 { Issue.record("reachd's system calls while idle:\n\(table)") }
        return calls
    }

    /// CheckConnectivity's answer (`s "full"`, or the D-Bus error's name and message), then the
    /// Connectivity property.
    func checkAndProperty() async throws -> (check: String, property: String) {
        let check = try await runTool("/usr/bin/dbus-send", ["--bus=\(session.address)", "--print-reply", "--reply-timeout=40000",
                                                             "--dest=\(ReachdProcess.busName)", ReachdProcess.path,
                                                             "\(ReachdProcess.interface).CheckConnectivity"], timeout: .seconds(45))
        let property = try await reachdProperties(["Connectivity"]).first ?? ""
        let answer: String
        if check.succeeded, let value = check.standardOutput.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces),
           value.hasPrefix("string ") {
            answer = "s " + value.dropFirst("string ".count)
        } else {
            // dbus-send: "Error org.freedesktop.DBus.Error.NotSupported: …"
            var error = check.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            if error.hasPrefix("Error ") { error.removeFirst("Error ".count) }
            answer = "error " + error
        }
        return (answer, property)
    }

    /// CheckConnectivity agrees with Connectivity: the same answer, or, where no check exists
    /// anywhere (no source checks and no URI is set) and Connectivity says unknown, NotSupported.
    static func agree(check: String, property: String) -> Bool {
        check == property || (property == "s \"unknown\"" && check.hasPrefix("error org.freedesktop.DBus.Error.NotSupported"))
    }
}
