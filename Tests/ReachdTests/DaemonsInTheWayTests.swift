import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The suite runs beside a connmand, NetworkManager or systemd-networkd that manages another
/// namespace (a container's, as on a CI machine), and refuses one that manages the machine's
/// interfaces or the suite's own. Each case starts a sleeping process under a daemon's name
/// (/proc/PID/comm is what the check reads) in the namespace the case is about. Only the case
/// that must be ignored uses the real names: a stand-in in the machine's or the suite's namespace
/// would (rightly) stop the real-daemon tests running beside this one, so those use a name of
/// their own and ask the same check about it.
@Suite("network daemons in other namespaces are ignored, in the machine's or the suite's refused", .timeLimit(.minutes(1)))
struct DaemonsInTheWayTests {
    /// A copy of sleep(1) named `name`, sleeping in the network namespace that `enter` leads into.
    final class Sleeper: Sendable {
        let child: ChildProcess
        let name: String
        private let folder: String

        init(named name: String, entering enter: [String] = []) throws {
            self.name = name
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-way-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try copyExecutable("/bin/sleep", to: folder + "/" + name)
            let program = folder + "/" + name
            child = try enter.isEmpty ? ChildProcess(program, ["60"]) : ChildProcess(enter[0], Array(enter.dropFirst()) + [program, "60"])
        }

        /// The sleeper's own pid (under `unshare`/`nsenter`, which exec it, the same process).
        func running() async throws -> pid_t {
            let pid = child.pid, comm = String(name.prefix(15))  // the kernel keeps 15 characters
            try await eventually(timeout: .seconds(5), "the sleeper runs as \(comm): \(child.standardError)") {
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == comm
            }
            return pid
        }

        func stop() {
            child.stop(SIGKILL)
            _ = child.waitBlocking()
            child.removeOutput()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static func ownName() -> String { "rdway-\(UUID().uuidString.prefix(6).lowercased())" }

    /// The namespace the suite was started from (`net:[INODE]`), as Scripts/harness/test-namespace exports it.
    static func machineNamespace() throws -> String {
        guard let machine = ProcessInfo.processInfo.environment["REACHD_MACHINE_NETNS"] else {
            throw TestFailure("REACHD_MACHINE_NETNS is not set: run the tests with Scripts/test (Scripts/harness/test-namespace sets it)")
        }
        return machine
    }

    static func requireRoot() throws {
        guard geteuid() == 0 else { throw TestFailure("this test needs root (it makes network namespaces and reads other processes' ones): run it with sudo -E Scripts/test") }
    }

    @Test("a connmand, NetworkManager and systemd-networkd in a namespace of their own (a container's) are not in the way")
    func daemonsOfAnotherNamespaceAreIgnored() async throws {
        try Self.requireRoot()
        var sleepers: [Sleeper] = []
        defer { for sleeper in sleepers { sleeper.stop() } }
        var pids: [pid_t] = []
        for name in ["connmand", "NetworkManager", "systemd-network"] {
            let sleeper = try Sleeper(named: name, entering: ["/usr/bin/unshare", "--net"])
            sleepers.append(sleeper)
            pids.append(try await sleeper.running())
        }
        let found = try DaemonsInTheWay.find(["connmand", "NetworkManager", "systemd-network"])
        #expect(found.allSatisfy { !pids.contains($0.pid) }, "in a namespace of their own, yet in the way: \(found)")
    }

    @Test("one in the suite's own namespace is in the way")
    func aDaemonInTheSuitesNamespaceIsRefused() async throws {
        try Self.requireRoot()
        let name = Self.ownName()
        let sleeper = try Sleeper(named: name)
        defer { sleeper.stop() }
        let pid = try await sleeper.running()
        #expect(try DaemonsInTheWay.find([name]) == [.init(pid: pid, name: name, place: "the suite's namespace")])
        // Another clone's suite, in a namespace of its own, runs beside it: neither its namespace nor the machine's.
        _ = try Self.machineNamespace()
        let otherSuite = try Sleeper(named: Self.ownName(), entering: ["/usr/bin/unshare", "--net"])
        defer { otherSuite.stop() }
        let seenByTheOther = try DaemonsInTheWay.find([name], suitePid: try await otherSuite.running())
        #expect(seenByTheOther.isEmpty, "\(seenByTheOther)")
    }

    @Test("one in the machine's namespace (the one Scripts/test started from) is in the way")
    func aDaemonInTheMachinesNamespaceIsRefused() async throws {
        try Self.requireRoot()
        let machine = try Self.machineNamespace()
        let ownNamespace = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        try #require(machine != ownNamespace, "the suite runs in a namespace of its own")
        // A process in the machine's namespace to enter it by (Scripts/test's own shell is one).
        let inMachine = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(pid_t.init).first { pid in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net")) == machine
        }
        let entry = try #require(inMachine, "no process in the machine's namespace \(machine)")
        let name = Self.ownName()
        let sleeper = try Sleeper(named: name, entering: ["/usr/bin/nsenter", "--net=/proc/\(entry)/ns/net"])
        defer { sleeper.stop() }
        let pid = try await sleeper.running()
        #expect(try DaemonsInTheWay.find([name]) == [.init(pid: pid, name: name, place: "the machine's namespace")])
    }
}
