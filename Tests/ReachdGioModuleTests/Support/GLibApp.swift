import Foundation
import Glibc
import ReachdTestSupport

/// CLOCK_MONOTONIC in seconds, the clock of the consumer's `at` (Python's time.monotonic()).
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// GNetworkConnectivity, as GIO numbers it.
enum Connectivity: Int, Sendable, CustomStringConvertible {
    case local = 1, limited, portal, full

    var description: String {
        switch self {
        case .local: "LOCAL"
        case .limited: "LIMITED"
        case .portal: "PORTAL"
        case .full: "FULL"
        }
    }
}

/// GNetworkMonitor's three properties, read together.
struct MonitorValues: Equatable, Sendable, CustomStringConvertible {
    var available: Bool
    var connectivity: Connectivity
    var metered: Bool

    init(_ available: Bool, _ connectivity: Connectivity, metered: Bool = false) {
        self.available = available
        self.connectivity = connectivity
        self.metered = metered
    }

    var description: String { "(\(available ? "available" : "not available"), \(connectivity), \(metered ? "metered" : "not metered"))" }
}

/// What a GLib app saw of its monitor: a `notify::` or a `network-changed`, with the three
/// properties as the handler read them.
enum Seen: Equatable, Sendable, CustomStringConvertible {
    case notify(String, MonitorValues)
    case changed(Bool, MonitorValues)

    var description: String {
        switch self {
        case .notify(let property, let values): "notify::\(property) \(values)"
        case .changed(let available, let values): "network-changed(\(available)) \(values)"
        }
    }
}

/// One line of gio-consumer.py's output.
struct ConsumerEvent: Decodable, Sendable {
    var event: String
    var type: String?
    var property: String?
    var available: Bool?
    var connectivity: Int?
    var metered: Bool?
    var signalled: Bool?
    /// default: get_default()'s time less what the app's threads waited for a CPU; and its wall-clock time.
    var ms: Double?
    var wall_ms: Double?
    var host: String?
    var ok: Bool?
    var error: ConsumerError?
    var sync: ConsumerAnswer?
    var asynchronous: ConsumerAnswer?
    var answered: Int?
    var succeeded: Int?
    var errors: [String: Int]?
    var outcomes: [String: Int]?
    var answer_ms: Double?
    /// flood: the longest single can_reach_async call.
    var longest_ask_ms: Double?
    /// flood: how long each slow name waited for its answer, from its can_reach_async.
    var slow_ms: [Double]?
    /// flood: the main loop's turns while the answers came, the most answers one carried, the
    /// longest one's dispatch and the most CPU time one took.
    var turns: Int?
    var most_per_turn: Int?
    var longest_turn_ms: Double?
    var most_turn_cpu_ms: Double?
    /// notify, changed: when the handler ran, CLOCK_MONOTONIC in seconds (`monotonicSeconds()`).
    var at: Double?
    var threads_before: Int?
    var threads_after: Int?
    var unique_name: String?

    enum CodingKeys: String, CodingKey {
        case event, type, property, available, connectivity, metered, signalled, ms, wall_ms, host, ok, error, sync, answered, succeeded
        case errors, outcomes, answer_ms, longest_ask_ms, slow_ms, turns, most_per_turn, longest_turn_ms, most_turn_cpu_ms
        case threads_before, threads_after, unique_name, at
        case asynchronous = "async"
    }

    var values: MonitorValues? {
        guard let available, let connectivity = connectivity.flatMap(Connectivity.init(rawValue:)), let metered else { return nil }
        return MonitorValues(available, connectivity, metered: metered)
    }

    var seen: Seen? {
        guard let values else { return nil }
        switch event {
        case "notify": return property.map { .notify($0, values) }
        case "changed": return signalled.map { .changed($0, values) }
        default: return nil
        }
    }
}

struct ConsumerError: Decodable, Sendable, Equatable {
    var domain: String
    var code: Int
    var message: String
}

/// can_reach's answer: TRUE, or the GError.
struct ConsumerAnswer: Decodable, Sendable, Equatable {
    var ok: Bool
    var error: ConsumerError?
}

/// GIOErrorEnum values the module answers with.
enum GIOError {
    static let domain = "g-io-error-quark"
    static let failed = 0
    static let invalidArgument = 13
    static let cancelled = 19
    static let hostUnreachable = 37
    static let networkUnreachable = 38
}

/// A GLib app as the tests see one: python3-gi running consumers/gio-consumer.py, which asks GIO
/// for its network monitor and prints what it sees. The app knows nothing of reachd; which
/// monitor it gets is GIO's choice, from the environment built here.
final class GLibApp: Sendable {
    static let script = ModuleBuilds.packageRoot + "/Tests/ReachdGioModuleTests/consumers/gio-consumer.py"
    static let python = "/usr/bin/python3"
    /// Another connection's unicast signals to an app (consumers/spoof.py).
    static let spoofScript = ModuleBuilds.packageRoot + "/Tests/ReachdGioModuleTests/consumers/spoof.py"

    let child: ChildProcess
    private let runtimeDirectory: String

    /// `session`: the bus address, or nil for none at all. `modules`: GIO_EXTRA_MODULES (the
    /// module's folder), or nil for GLib's own modules only. `system`: the system bus, where
    /// GLib's own NetworkManager monitor and the module's second choice look (an address where
    /// nothing listens when nil). `launcher`: a program that runs python3 (valgrind, unshare).
    /// `user`: the app runs as this user (`setpriv`, after the launcher), with its runtime folder
    /// and home its own, as a system service's process is; the script and the module's folder
    /// are then world-readable copies (OtherUsersCopies), as the checkout may be in a folder only
    /// root can enter.
    init(_ arguments: [String], session: String?, system: String?, modules: String?, build: ModuleBuild = .plain,
         environment extra: [String: String] = [:], launcher: [String] = [], user: String? = nil) throws {
        runtimeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-gio-app-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var becomeUser: [String] = []
        if let user {
            guard let entry = getpwnam(user) else { throw TestFailure("there is no user \(user)") }
            guard chown(runtimeDirectory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw TestFailure("chown \(runtimeDirectory) to \(user): \(String(cString: strerror(errno)))")
            }
            becomeUser = ["/usr/bin/setpriv"] + (try SystemInstance.dropPrivileges(to: user))
        }
        var environment = [
            // Never the machine's own session bus through $XDG_RUNTIME_DIR/bus.
            "XDG_RUNTIME_DIR": runtimeDirectory,
            "DBUS_SYSTEM_BUS_ADDRESS": system ?? absentSystemBusAddress(),
            "GIO_USE_VFS": "local",
        ]
        if user != nil { environment["HOME"] = runtimeDirectory }
        var unsetting = ["PYTHONPATH", "PYTHONHOME", "GIO_USE_NETWORK_MONITOR", "GIO_EXTRA_MODULES", "GIO_MODULE_DIR",
                         "LD_PRELOAD", "ASAN_OPTIONS", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "G_MESSAGES_DEBUG"]
        if let session { environment["DBUS_SESSION_BUS_ADDRESS"] = session }
        if let modules { environment["GIO_EXTRA_MODULES"] = user == nil ? modules : try OtherUsersCopies.path(for: modules) }
        environment.merge(build.environment) { $1 }
        environment.merge(extra) { $1 }
        unsetting.removeAll { environment[$0] != nil }
        let script = user == nil ? Self.script : try OtherUsersCopies.path(for: Self.script)
        let command = launcher + becomeUser + [Self.python, script] + arguments
        child = try ChildProcess(command[0], Array(command.dropFirst()), environment: environment, unsetting: unsetting)
    }

    /// Every JSON line printed so far.
    var events: [ConsumerEvent] {
        child.standardOutput.split(separator: "\n").compactMap { line in
            try? JSONDecoder().decode(ConsumerEvent.self, from: Data(line.utf8))
        }
    }

    /// The notifies and network-changed signals seen so far, in order.
    var seen: [Seen] { events.compactMap(\.seen) }

    var transcript: String { "--- stdout\n\(child.standardOutput)--- stderr\n\(child.standardError)" }

    /// The first event named `name`, waiting for it (the app failing meanwhile fails the wait).
    @discardableResult
    func first(_ name: String, timeout: Duration = .seconds(20)) async throws -> ConsumerEvent {
        var found: ConsumerEvent?
        try await eventually(timeout: timeout, "the GLib app prints '\(name)':\n\(transcript)") {
            found = events.first { $0.event == name }
            if found == nil, let status = child.poll() { throw TestFailure("the GLib app exited with \(status) before '\(name)':\n\(transcript)") }
            return found != nil
        }
        return found!
    }

    /// Waits until `count` network-changed signals have been seen.
    func waitForChanges(_ count: Int, timeout: Duration = .seconds(20)) async throws {
        try await eventually(timeout: timeout, "the GLib app has seen \(count) network-changed:\n\(transcript)") {
            if let status = child.poll() { throw TestFailure("the GLib app exited with \(status):\n\(transcript)") }
            return seen.filter { if case .changed = $0 { true } else { false } }.count >= count
        }
    }

    /// Runs it to its end (one-shot commands) and returns its events.
    func finish(timeout: Duration = .seconds(60)) async throws -> [ConsumerEvent] {
        let status = try await child.exit(timeout: timeout)
        guard status == 0 else { throw TestFailure("the GLib app exited with \(status):\n\(transcript)") }
        return events
    }

    func stop() {
        child.stop(SIGTERM)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    deinit { stop() }
}
