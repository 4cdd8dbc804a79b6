import Foundation
import Glibc
import Synchronization
import ReachdTestSupport

/// What one test runs against: a private session bus, python-dbusmock's NetworkManager on a
/// private system bus, and reachd between them, as the other end-to-end tests have it.
final class Lab: Sendable {
    let session: PrivateBus
    let system: PrivateBus
    let networkManager: NetworkManagerMock
    /// A folder of the test's own (activation wrapper, its log, the portal's home).
    let scratch: String
    /// `activatableInNamespace`'s network namespace, held by this process (a shell that ends
    /// when the test process does).
    let namespaceHolder: ChildProcess?
    private let started = Mutex<[ReachdProcess]>([])

    /// How reachd is there.
    enum Service {
        /// Started by the test in the tests' own network namespace (`rv0`, default via 192.0.2.1),
        /// where the apps run too.
        case running(arguments: [String])
        /// Started by the test in a network namespace of its own with the same routes, for a test
        /// that changes them; the apps run in that namespace (reachd answers only its own).
        case runningPrivately(arguments: [String])
        /// Started by the bus on first use (D-Bus activation, in the test's namespace, with
        /// --no-override), through a wrapper that logs each start and refuses while `refuse` exists.
        case activatable
        /// Neither running nor activatable: the bus has no service file for it.
        case absent
        /// Started by the bus on first use, as `activatable`, but in a network namespace of the
        /// lab's own with the routes of `privateWithDefaultRoute`, which outlives each reachd
        /// (the apps run there too, and the test changes its routes: `inNamespace`), reading
        /// `configuration` (`--config`), which the test can break and mend
        /// (`writeConfiguration`): a bad one and reachd exits at once, as after a typo in an update.
        case activatableInNamespace
    }

    /// A configuration reachd starts with, and one with a typo it refuses (exit 64).
    static let goodConfiguration = "# reachd's configuration for this test: nothing to change\n"
    static let badConfiguration = "[connectivity]\nthis line is a typo\n"

    /// reachd as most tests want it: following the mock as it is (the mock's devices are not
    /// the namespace's links, so not cross-checked against the kernel).
    static let followingTheMock = Service.running(arguments: ["--no-override"])

    private init(session: PrivateBus, system: PrivateBus, networkManager: NetworkManagerMock, scratch: String,
                 namespaceHolder: ChildProcess?) {
        self.session = session
        self.system = system
        self.networkManager = networkManager
        self.scratch = scratch
        self.namespaceHolder = namespaceHolder
    }

    /// A network namespace (and a mount namespace with its own /sys) with lo, veth rv0 with
    /// 192.0.2.2/24 and a default route via 192.0.2.1, held by a shell that ends with this
    /// process; returned once set up.
    static func holdNamespace() async throws -> ChildProcess {
        let setup = """
            mount -t sysfs sysfs /sys && ip link set lo up && \
            ip link add rv0 type veth peer name rv1 && ip link set rv1 up && \
            ip address add 192.0.2.2/24 dev rv0 && ip link set rv0 up && \
            ip route add default via 192.0.2.1 && echo ready && \
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            """
        let holder = try ChildProcess("/usr/bin/unshare", ["--net", "--mount", "--", "/bin/sh", "-c", setup])
        try await eventually(timeout: .seconds(10), "the lab's network namespace is set up: \(holder.standardError)") {
            if let status = holder.poll() { throw TestFailure("setting up the lab's namespace failed (\(status)): \(holder.standardError)") }
            return holder.standardOutput.contains("ready")
        }
        return holder
    }

    static func make(_ service: Service, parameters: String?,
                     setUp: @Sendable (NetworkManagerMock) async throws -> Void) async throws -> Lab {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-gio-lab-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let system = try PrivateBus(.system)
        let networkManager: NetworkManagerMock
        do {
            networkManager = try await NetworkManagerMock(on: system, parameters: parameters)
            try await setUp(networkManager)
        } catch {
            system.stop()
            throw error
        }
        var activation: [String: String]? = nil
        var holder: ChildProcess? = nil
        if case .activatableInNamespace = service {
            do {
                holder = try await holdNamespace()
            } catch {
                networkManager.stop()
                system.stop()
                throw error
            }
            let pid = holder!.pid
            try goodConfiguration.write(toFile: "\(scratch)/reachd.conf", atomically: true, encoding: .utf8)
            let wrapper = "\(scratch)/activate.sh"
            try writeExecutableScript("""
                #!/bin/sh
                # One line per start the bus asks for; reachd in the lab's namespace, with its configuration.
                date +%s%N >> '\(scratch)/activations'
                exec /usr/bin/nsenter --net=/proc/\(pid)/ns/net --mount=/proc/\(pid)/ns/mnt -- \
                    '\(ReachdProcess.executable)' --system-bus-address '\(system.address)' --no-override --config '\(scratch)/reachd.conf'
                """, to: wrapper)
            activation = ["io.reachd.Reachability1.service": """
                [D-BUS Service]
                Name=io.reachd.Reachability1
                Exec=\(wrapper)
                """]
        }
        if case .activatable = service {
            let wrapper = "\(scratch)/activate.sh"
            try writeExecutableScript("""
                #!/bin/sh
                # One line per start the bus asks for; refused (exit 1) while \(scratch)/refuse exists.
                date +%s%N >> '\(scratch)/activations'
                [ -e '\(scratch)/refuse' ] && exit 1
                exec '\(ReachdProcess.executable)' --system-bus-address '\(system.address)' --no-override
                """, to: wrapper)
            activation = ["io.reachd.Reachability1.service": """
                [D-BUS Service]
                Name=io.reachd.Reachability1
                Exec=\(wrapper)
                """]
        }
        let session: PrivateBus
        do {
            session = try PrivateBus(.session, activationFiles: activation)
        } catch {
            holder?.stop(SIGKILL)
            networkManager.stop()
            system.stop()
            throw error
        }
        let lab = Lab(session: session, system: system, networkManager: networkManager, scratch: scratch,
                      namespaceHolder: holder)
        let start: (arguments: [String], network: ReachdProcess.Network)? = switch service {
        case .running(let arguments): (arguments, .testNamespace)
        case .runningPrivately(let arguments): (arguments, .privateWithDefaultRoute)
        default: nil
        }
        if let start {
            do {
                try await lab.startReachd(arguments: start.arguments, network: start.network)
            } catch {
                lab.stop()
                throw error
            }
        }
        return lab
    }

    /// Starts a reachd (in the tests' namespace unless another is asked for) and waits until it serves.
    @discardableResult
    func startReachd(arguments: [String], network: ReachdProcess.Network = .testNamespace) async throws -> ReachdProcess {
        let reachd = try ReachdProcess(session: session, systemBus: system.address, network: network,
                                       arguments: arguments)
        started.withLock { $0.append(reachd) }
        try await reachd.waitUntilServing(timeout: .seconds(15))
        return reachd
    }

    /// The reachd the test started last.
    var reachd: ReachdProcess? { started.withLock { $0.last } }

    /// The pid of whoever owns reachd's name now (an activated reachd is the bus's child).
    func reachdPID() async throws -> pid_t? {
        try await session.processID(of: ReachdProcess.busName)
    }

    /// When the bus asked the activation wrapper to start reachd, in ns since the epoch.
    var activations: [UInt64] {
        ((try? String(contentsOfFile: "\(scratch)/activations", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { UInt64($0) }
    }

    /// While true, the activation wrapper refuses to start reachd.
    func refuseActivation(_ refuse: Bool) {
        if refuse {
            _ = FileManager.default.createFile(atPath: "\(scratch)/refuse", contents: nil)
        } else {
            try? FileManager.default.removeItem(atPath: "\(scratch)/refuse")
        }
    }

    /// What to put before a command to run it in the apps' network namespace: reachd's where
    /// the test started it elsewhere than the tests' own, the lab's with `activatableInNamespace`.
    var namespaceLauncher: [String] {
        if let namespaceHolder { return ["/usr/bin/nsenter", "--net=/proc/\(namespaceHolder.pid)/ns/net", "--"] }
        return reachd?.namespaceLauncher ?? []
    }

    /// Runs `command` in the apps' network namespace (`ip route del default`), failing the test where it fails.
    func inNamespace(_ command: String...) async throws {
        let full = namespaceLauncher + command
        _ = try await runToolChecked(full[0], Array(full.dropFirst()))
    }

    /// Rewrites `activatableInNamespace`'s configuration file.
    func writeConfiguration(_ text: String) throws {
        try text.write(toFile: "\(scratch)/reachd.conf", atomically: true, encoding: .utf8)
    }

    /// A property of reachd's main object as busctl prints it (`s "link"`).
    func reachdProperty(_ name: String) async throws -> String {
        let result = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, name)
        guard result.succeeded else { throw TestFailure("busctl get-property \(name): \(result.transcript)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A GLib app on this lab's buses, with the module of `build`, in reachd's network namespace.
    func app(_ arguments: [String], build: ModuleBuild = .plain, environment: [String: String] = [:],
             launcher: [String] = []) async throws -> GLibApp {
        try GLibApp(arguments, session: session.address, system: system.address, modules: try await build.directory(),
                    build: build, environment: environment, launcher: namespaceLauncher + launcher)
    }

    func app(_ arguments: String..., build: ModuleBuild = .plain, environment: [String: String] = [:],
             launcher: [String] = []) async throws -> GLibApp {
        try await app(arguments, build: build, environment: environment, launcher: launcher)
    }

    func stop() {
        for reachd in started.withLock({ $0 }) { reachd.stop() }
        // An activated reachd is the bus's child; it would exit when the bus goes, but not at once.
        if let owner = try? runToolBlocking("busctl", ["--address=\(session.address)", "call", "org.freedesktop.DBus",
                                                       "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                       "GetConnectionUnixProcessID", "s", ReachdProcess.busName]),
           let pid = pid_t(unquoted(owner, type: "u")) {
            kill(pid, SIGTERM)
        }
        networkManager.stop()
        session.stop()
        system.stop()
        namespaceHolder?.stop(SIGKILL)
        try? FileManager.default.removeItem(atPath: scratch)
    }
}

/// `busctl …` run to its end from teardown code, which cannot await; its standard output, or nil.
private func runToolBlocking(_ executable: String, _ arguments: [String]) throws -> String? {
    let child = try ChildProcess(executable, arguments)
    defer { child.removeOutput() }
    return child.waitBlocking() == 0 ? child.standardOutput : nil
}

/// Runs `body` in a fresh lab (the mock set up by `setUp` before reachd starts) and stops all of
/// it afterwards.
func withLab<T>(_ service: Lab.Service = Lab.followingTheMock, parameters: String? = nil,
                setUp: @Sendable (NetworkManagerMock) async throws -> Void = { _ in },
                _ body: (Lab) async throws -> T) async throws -> T {
    let lab = try await Lab.make(service, parameters: parameters, setUp: setUp)
    defer { lab.stop() }
    return try await body(lab)
}

/// The mock as a laptop on Wi-Fi has it: Wi-Fi, ethernet and a modem, Wi-Fi the primary
/// connection, CONNECTED_GLOBAL, connectivity FULL, Metered UNKNOWN.
@Sendable func wifiConnected(_ mock: NetworkManagerMock) async throws {
    try await mock.addWiFi()
    try await mock.addEthernet()
    try await mock.addModem()
    try await mock.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/wifi0")
    try await mock.setManager("Connectivity", "u", "4")
    try await mock.setState(70)
}
