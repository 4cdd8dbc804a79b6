import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// logind's "the machine woke up" is believed from logind only, and even logind's own, however
/// many, costs at most one resynchronisation per 5 s. On main d31f781 another user's 5,000
/// unicast `PrepareForSleep(false)` cost reachd 3.1 s of CPU, NetworkManager 295 `GetAll` calls
/// and the log 5,003 lines. Here on Debian's deny-by-default system bus, reachd as user `reachd`,
/// python-dbusmock's logind (as root) owning `org.freedesktop.login1`, the attacker another user.
@Suite("Spoofed and repeated resumes", .serialized, .timeLimit(.minutes(3)))
struct SpoofedResumeTests {
    /// Sends `count` unicast `PrepareForSleep(false)` to every connection of user `victim`,
    /// dressed as logind's (its path, interface and member); prints how many connections.
    static let attack = """
        import sys, dbus, dbus.lowlevel
        bus = dbus.bus.BusConnection(sys.argv[1])
        victim, count = int(sys.argv[2]), int(sys.argv[3])
        names = [n for n in bus.list_names() if n.startswith(':') and bus.get_unix_user(n) == victim]
        for i in range(count):
            for name in names:
                message = dbus.lowlevel.SignalMessage('/org/freedesktop/login1', 'org.freedesktop.login1.Manager', 'PrepareForSleep')
                message.set_destination(name)
                message.append(False, signature='b')
                bus.send_message(message)
        bus.flush()
        print(len(names))
        """

    /// Reads of NetworkManager in dbus-monitor's output: calls on its objects, however addressed.
    static func networkManagerReads(_ monitor: BackgroundTool) -> Int {
        monitor.lines.filter { $0.hasPrefix("method call") && $0.contains("path=/org/freedesktop/NetworkManager") }.count
    }

    static func startLogind(on bus: PrivateBus) async throws -> ChildProcess {
        let logind = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"],
                                      environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
                                      unsetting: ["PYTHONPATH", "PYTHONHOME"])
        try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.login1") {
            try await bus.owner(of: "org.freedesktop.login1") != nil
        }
        return logind
    }

    static func resumeLines(_ reachd: ReachdProcess) -> Int {
        reachd.standardError.components(separatedBy: "resume: resynchronising").count - 1
    }

    @Test("another user's 5,000 unicast PrepareForSleep(false) to each of reachd's connections: no NetworkManager read, no log line, CPU near zero; logind's own still counts")
    func spoofedResumesAreIgnored() async throws {
        try await withSystemInstance(arguments: ["--log-level", "debug"]) { bus, _, reachd in
            let logind = try await Self.startLogind(on: bus)
            defer { logind.stop(SIGKILL) }
            let monitor = try BackgroundTool("dbus-monitor", ["--address", bus.address, "type='method_call'"])
            defer { monitor.stop() }
            try await monitor.waitForOutput(containing: "NameLost")
            // reachd has seen logind arrive once a resume from it counts; the machine's real one proves it.
            try await Task.sleep(for: .milliseconds(500))
            let uid = try #require(getpwnam(SystemInstance.serviceUser)).pointee.pw_uid

            let logBefore = reachd.standardError
            let readsBefore = Self.networkManagerReads(monitor)
            let cpuBefore = try ProcessFigures.cpuTime(of: reachd.pid)
            let attack = try await SystemInstance.run(as: SystemInstance.testUser, bus: bus, "/usr/bin/env",
                                                      ["-u", "PYTHONPATH", "-u", "PYTHONHOME", "/usr/bin/python3", "-c", Self.attack, bus.address, "\(uid)", "5000"], timeout: .seconds(120))
            #expect(attack.succeeded, "\(attack.transcript)")
            let targets = Int(attack.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(targets >= 1, "the attack found reachd's connections: \(attack.transcript)")
            // Had any been believed, its round would have run at once and logged; its follow-up 5 s later.
            try await Task.sleep(for: .seconds(2))
            let cpu = try ProcessFigures.cpuTime(of: reachd.pid) - cpuBefore
            let newLog = String(reachd.standardError.dropFirst(logBefore.count))
            #expect(newLog.isEmpty, "reachd logged during the attack:\n\(newLog)")
            #expect(Self.networkManagerReads(monitor) == readsBefore, "NetworkManager was read during the attack")
            print("SpoofedResumeTests: \(5000 * targets) spoofed signals cost reachd \(cpu) of CPU")
            #expect(cpu < .milliseconds(500), "\(5000 * targets) spoofed signals cost reachd \(cpu) of CPU")

            // The real logind is still believed: its resume reads NetworkManager and is logged.
            try await runToolChecked("busctl", [
                "--address=\(bus.address)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.login1.Manager",
                "PrepareForSleep", "b", "1", "b", "false"])
            try await eventually(timeout: .seconds(10), "logind's own resume is followed") {
                reachd.standardError.contains("resume: resynchronising (at wake)")
                    && Self.networkManagerReads(monitor) > readsBefore
            }
        }
    }

    @Test("logind's own PrepareForSleep(false) fifty times at once: rounds at wake and 5 s apart after, never closer, then none")
    func realResumesAreRateLimited() async throws {
        try await withSystemInstance(arguments: ["--log-level", "info"]) { bus, _, reachd in
            let logind = try await Self.startLogind(on: bus)
            defer { logind.stop(SIGKILL) }
            try await Task.sleep(for: .milliseconds(500))
            // One method of logind's stand-in emits them all, back to back.
            try await runToolChecked("busctl", [
                "--address=\(bus.address)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "AddMethod", "sssss", "org.freedesktop.DBus.Mock", "WakeFifty", "", "",
                "for i in range(50): self.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [False])"])
            let start = ContinuousClock.now
            try await runToolChecked("busctl", [
                "--address=\(bus.address)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "WakeFifty"])
            // Each round's time as the log shows it, polled every 20 ms: it came after the poll before
            // the one that saw it, and before that one. On a busy machine a poll may come late, so a
            // round's window can be wide.
            var rounds: [(after: ContinuousClock.Instant, before: ContinuousClock.Instant)] = []
            var lastPoll = start
            while ContinuousClock.now - start < .seconds(13) {
                let now = ContinuousClock.now
                while rounds.count < Self.resumeLines(reachd) { rounds.append((lastPoll, now)) }
                lastPoll = now
                try await Task.sleep(for: .milliseconds(20))
            }
            let offsets = rounds.map { "\($0.after - start)–\($0.before - start)" }
            // Fifty wakes in a burst: a round at once, then the burst's own two rounds 5 s apart.
            #expect((2...3).contains(rounds.count), "rounds at \(offsets): \(reachd.standardError)")
            for (earlier, later) in zip(rounds, rounds.dropFirst()) {
                // Provably closer than 4.5 s fails: the longest the gap can have been is later.before - earlier.after.
                #expect(later.before - earlier.after > .milliseconds(4500), "two rounds closer than 5 s: \(offsets)")
                // Where both windows are narrow (the polls came on time), the shortest it can have been too.
                if earlier.before - earlier.after < .milliseconds(100) && later.before - later.after < .milliseconds(100) {
                    #expect(later.after - earlier.before > .milliseconds(4400), "two rounds closer than 5 s: \(offsets)")
                }
            }
            #expect(reachd.standardError.contains("resume: resynchronising (5 s after wake)"))
        }
    }
}
