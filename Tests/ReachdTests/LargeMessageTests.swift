import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// One message costs one message (contract 7, §2). The bus lets any client send a message of
/// up to 32 MiB: a 30 MiB `ay` on `GetStatus` took the system instance from 9 MB to 1.38 GB and
/// 12.3 s of CPU, and stalled every other caller, because the body was decoded before its
/// signature was looked at; a 30 MiB unicast signal did the same to `reachctl watch`. Then the
/// header decided and nothing was decoded, but libdbus still read the message whole into a buffer
/// it grew to the message's size and copied the body out (+59 MiB). Now a connection's relay
/// reads the bus and passes libdbus a stand-in for a message over 4 MiB (`BusRelay`).
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

    /// Waits until the bus at `address` has written all it had for connection `name` (its
    /// `Debug.Stats`), the message being in its queue already (`sender` waits for that): then the
    /// receiver has read the message but for the last ~200 KiB in its socket, whatever it did with
    /// it; a receiver that held it would hold ~30 MiB by now.
    static func waitUntilDelivered(to name: String, on address: String) async throws {
        var stats = ""
        try await eventually(timeout: .seconds(30), "the bus has written all it had for \(name): \(stats)") {
            stats = try await runToolChecked("/usr/bin/busctl", ["--address=\(address)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                                 "org.freedesktop.DBus.Debug.Stats", "GetConnectionStats", "s", name]).standardOutput
            return stats.range(of: #""OutgoingBytes" u 0( |$)"#, options: .regularExpression) != nil
        }
    }

    /// The unique name the sender says it sent the signal to.
    static func recipient(_ senderOutput: String) -> String {
        senderOutput.split(separator: "\n").first { $0.hasPrefix("sent to ") }.map { String($0.dropFirst("sent to ".count)) } ?? ""
    }

    /// Sends, with python-dbus, `what` (`call`: a 30 MiB `ay` to reachd's GetStatus; `signal`: a
    /// 30 MiB unicast signal to the connection of process `target`), or of the size given last;
    /// prints the reply's error name.
    static let sender = """
        import dbus, sys
        what, address, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
        size = int(sys.argv[4]) if len(sys.argv) > 4 else 30 << 20
        bus = dbus.bus.BusConnection(address)
        big = dbus.ByteArray(b"\\0" * size)
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
                    # The bus handles one sender's messages in order: once it answers this, the
                    # signal is in the recipient's queue.
                    bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", "", [])
                    print("sent to", name)
        """

    @Test("a 30 MiB array on GetStatus is refused LimitsExceeded unread: reachd's peak memory grows by at most 16 MiB, its CPU by little, and another caller is answered meanwhile")
    func aMistypedHugeCallCostsOneMessage() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { reachd in
            try SystemInstanceLargeMessageTests.resetPeak(of: reachd.pid)
            let before = Usage(reachd.pid)
            let attack = try ChildProcess("/usr/bin/python3", ["-c", Self.sender, "call", session.address, "0"])
            defer { attack.removeOutput() }
            // Another caller meanwhile, as the victim of a stall would be.
            let asked = ContinuousClock.now
            let victim = try await session.busctl("call", ReachdProcess.busName, "/io/reachd/Reachability1", "io.reachd.Reachability1", "GetStatus")
            let waited = ContinuousClock.now - asked
            #expect(victim.succeeded, "\(victim.transcript)")
            #expect(try await attack.exit(timeout: .seconds(60)) == 0, "\(attack.standardError)")
            #expect(attack.standardOutput.contains("org.freedesktop.DBus.Error.LimitsExceeded"), "\(attack.standardOutput)\(attack.standardError)")
            let after = Usage(reachd.pid)
            let grownMiB = Double(after.peakKiB - before.peakKiB) / 1024, cpu = Double(after.ticks - before.ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
            // The relay reads it 32 KiB at a time and drops it: +59 MiB before the relay, 1.38 GB
            // and 12 s when it was decoded. The CPU bound leaves room for a busy machine.
            #expect(grownMiB <= 16, "peak memory grew \(grownMiB) MiB")
            #expect(cpu <= 0.5, "\(cpu) s of CPU for one refused call")
            print("LargeMessageTests: a 30 MiB mistyped call: peak +\(grownMiB) MiB, \(cpu) s CPU; another caller waited \(waited)")
        }
    }

    @Test("the largest array libdbus reads whole (just within 4 MiB) on GetStatus is refused InvalidArgs: reachd's peak memory grows by at most 16 MiB")
    func theLargestReadCallCostsAtMostSixteenMiB() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { reachd in
            try SystemInstanceLargeMessageTests.resetPeak(of: reachd.pid)
            let before = Usage(reachd.pid)
            let size = (4 << 20) - 4096
            let attack = try await runTool("/usr/bin/python3", ["-c", Self.sender, "call", session.address, "0", String(size)])
            #expect(attack.standardOutput.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(attack.transcript)")
            let grownMiB = Double(Usage(reachd.pid).peakKiB - before.peakKiB) / 1024
            // libdbus's buffer, grown to the message, and the body's copy.
            #expect(grownMiB <= 16, "peak memory grew \(grownMiB) MiB")
            print("LargeMessageTests: a \(size)-byte mistyped call (read whole): peak +\(grownMiB) MiB")
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
            try SystemInstanceLargeMessageTests.resetPeak(of: watch.pid)
            let before = Usage(watch.pid)
            let attack = try await runTool("/usr/bin/python3", ["-c", Self.sender, "signal", session.address, String(watch.pid)])
            #expect(attack.standardOutput.contains("sent to"), "\(attack.transcript)")
            try await Self.waitUntilDelivered(to: Self.recipient(attack.standardOutput), on: session.address)
            let after = Usage(watch.pid)
            let grownMiB = Double(after.peakKiB - before.peakKiB) / 1024
            // +59 MiB when libdbus read it whole.
            #expect(grownMiB <= 16, "reachctl watch's peak memory grew \(grownMiB) MiB")
            #expect(watch.poll() == nil, "watch still runs: \(watch.standardError)")
            print("LargeMessageTests: a 30 MiB unicast signal to reachctl watch: peak +\(grownMiB) MiB")
        }
    }
}
