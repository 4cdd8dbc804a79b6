import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// One message costs one message (contract 7, §2). The bus lets any client send a message of
/// up to 32 MiB: a 30 MiB `ay` on `GetStatus` took the system instance from 9 MB to 1.38 GB and
/// 12.3 s of CPU, and stalled every other caller, because the body was decoded before its
/// signature was looked at; a 30 MiB unicast signal did the same to `reachctl watch`. Now the
/// header decides and nothing is decoded; what remains is libdbus's own receive buffer, which it
/// grows by doubling to hold the whole message (about twice its size, until the next message).
@Suite("One large message costs one message", .timeLimit(.minutes(2)))
struct LargeMessageTests {
    /// A process's peak resident memory (KiB) and CPU time (clock ticks) so far.
    struct Usage {
        var peakKiB: Int
        var ticks: Int

        init(_ pid: pid_t) {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            peakKiB = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            ticks = fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
    }

    /// Sends, with python-dbus, `what` (`call`: a 30 MiB `ay` to reachd's GetStatus; `signal`: a
    /// 30 MiB unicast signal to the connection of process `target`); prints the reply's error name.
    static let sender = """
        import dbus, sys
        what, address, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
        bus = dbus.bus.BusConnection(address)
        big = dbus.ByteArray(b"\\0" * (30 << 20))
        if what == "call":
            try:
                bus.call_blocking("io.reachd.Reachability1", "/io/reachd/Reachability1", "io.reachd.Reachability1",
                                  "GetStatus", "ay", [big], timeout=60)
                print("answered")
            except dbus.exceptions.DBusException as error:
                print(error.get_dbus_name())
        else:
            names = bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", "", [])
            for name in names:
                if not name.startswith(":"):
                    continue
                try:
                    pid = bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                            "GetConnectionUnixProcessID", "s", [name])
                except dbus.exceptions.DBusException:
                    continue
                if pid == target:
                    message = dbus.lowlevel.SignalMessage("/io/reachd/Reachability1", "io.reachd.Reachability1", "ReachabilityChanged")
                    message.set_destination(name)
                    message.append(big, signature="ay")
                    bus.send_message(message)
                    bus.flush()
                    print("sent to", name)
        """

    @Test("a 30 MiB array on GetStatus (which takes nothing) is refused InvalidArgs unread: reachd's peak memory grows by little more than the message, its CPU by almost nothing, and another caller is answered meanwhile")
    func aMistypedHugeCallCostsOneMessage() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { reachd in
            let before = Usage(reachd.pid)
            let attack = try ChildProcess("/usr/bin/python3", ["-c", Self.sender, "call", session.address, "0"])
            defer { attack.removeOutput() }
            // Another caller meanwhile, as the victim of a stall would be.
            let asked = ContinuousClock.now
            let victim = try await session.busctl("call", ReachdProcess.busName, "/io/reachd/Reachability1", "io.reachd.Reachability1", "GetStatus")
            let waited = ContinuousClock.now - asked
            #expect(victim.succeeded, "\(victim.transcript)")
            #expect(try await attack.exit(timeout: .seconds(60)) == 0, "\(attack.standardError)")
            #expect(attack.standardOutput.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(attack.standardOutput)\(attack.standardError)")
            let after = Usage(reachd.pid)
            let grownMiB = Double(after.peakKiB - before.peakKiB) / 1024, cpu = Double(after.ticks - before.ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
            // libdbus holds what it received, in a buffer it grows by doubling: twice the message
            // (60 MiB measured), where decoding it cost 1.38 GB and 12 s.
            #expect(grownMiB <= 96, "peak memory grew \(grownMiB) MiB")
            #expect(cpu <= 1, "\(cpu) s of CPU for one refused call")
            print("LargeMessageTests: a 30 MiB mistyped call: peak +\(grownMiB) MiB, \(cpu) s CPU; another caller waited \(waited)")
        }
    }

    @Test("a 30 MiB unicast signal to reachctl watch from a connection that is not reachd's is dropped unread")
    func aHugeSignalFromANonOwnerCostsOneMessage() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path
            let watch = try ChildProcess(reachctl, ["--service", "session", "watch"],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
            defer {
                watch.stop(SIGKILL)
                watch.removeOutput()
            }
            try await eventually(timeout: .seconds(20), "watch prints the first value: \(watch.standardError)") { !watch.standardOutput.isEmpty }
            let before = Usage(watch.pid)
            let attack = try await runTool("/usr/bin/python3", ["-c", Self.sender, "signal", session.address, String(watch.pid)])
            #expect(attack.standardOutput.contains("sent to"), "\(attack.transcript)")
            try await Task.sleep(for: .seconds(1))
            let after = Usage(watch.pid)
            let grownMiB = Double(after.peakKiB - before.peakKiB) / 1024
            #expect(grownMiB <= 96, "reachctl watch's peak memory grew \(grownMiB) MiB (libdbus's buffer: twice the message)")
            #expect(watch.poll() == nil, "watch still runs: \(watch.standardError)")
            print("LargeMessageTests: a 30 MiB unicast signal to reachctl watch: peak +\(grownMiB) MiB")
        }
    }
}
