import ReachdDBus
import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A monitor belongs to the connection that made it; caps bound how many
/// one connection and all of them may hold (docs/app-developers/dbus-contract.md, "Host monitors").
///
/// These run reachd in the test's own network namespace without a system
/// bus and ask only about loopback literals: route lookups, no traffic.
@Suite("Monitor ownership and caps")
struct MonitorOwnershipTests {
    static let limitExceeded = "io.reachd.Reachability1.Error.LimitExceeded"

    /// A client that makes monitors for its arguments, prints each path, then
    /// `READY`, and holds its connection (and so its monitors) until killed.
    static let holder = """
        import sys, time, dbus
        bus = dbus.bus.BusConnection(sys.argv[1])
        main = bus.get_object('io.reachd.Reachability1', '/io/reachd/Reachability1')
        for address in sys.argv[2:]:
            print(main.ManagerForAddress(address, dbus_interface='io.reachd.Reachability1'), flush=True)
        print('READY', flush=True)
        while True:
            time.sleep(3600)
        """

    @Test func killedClientsMonitorsAreReleased() async throws {
        try await withLocalReachd { session in
            try await withClient(session) { client in
                let kept = try await client.managerForAddress("127.0.0.1")
                let before = try await client.monitorCount()
                #expect(before == 1)
                let announcements = try await client.recordSignals(
                    interface: .properties, member: "PropertiesChanged", path: ReachdClient.mainPath)
                defer { announcements.stop() }

                let holder = try ChildProcess("/usr/bin/python3", ["-c", Self.holder, session.address, "127.0.0.1", "::1", "127.0.0.2"])
                defer { holder.stop(SIGKILL); holder.removeOutput() }
                try await eventually("the client holds its monitors; its output:\n\(holder.standardOutput)\(holder.standardError)") {
                    if holder.poll() != nil { throw TestFailure("the client exited: \(holder.standardError)") }
                    return holder.standardOutput.contains("READY\n")
                }
                let held = holder.standardOutput.split(separator: "\n").filter { $0.hasPrefix("/") }.compactMap { ObjectPath(rawValue: String($0)) }
                #expect(held.count == 3)
                #expect(try await client.monitorCount() == before + 3)

                kill(holder.pid, SIGKILL)
                try await eventually("MonitorCount is back to \(before)") { try await client.monitorCount() == before }
                #expect(try await client.exportedMonitors() == [kept.rawValue.split(separator: "/").last.map(String.init) ?? ""])
                for path in held {
                    let error = try await dbusError { try await client.host(of: path) }
                    #expect(error.name.rawValue == "org.freedesktop.DBus.Error.UnknownObject", "\(path): \(error)")
                }
                #expect(try await client.host(of: kept) == "127.0.0.1")
                // Each change of the count was announced, the last one the count before the client came.
                try await eventually("MonitorCount \(before) is announced") {
                    announcements.messages.changedValues(of: "MonitorCount").last == .uint32(before)
                }
                #expect(announcements.messages.changedValues(of: "MonitorCount").contains(.uint32(before + 3)))
            }
        }
    }

    @Test func capsAnswerLimitExceeded() async throws {
        try await withLocalReachd(arguments: ["--max-monitors-per-client", "3", "--max-monitors", "5"]) { session in
            try await withClient(session) { first in
                try await withClient(session) { second in
                    try await withClient(session) { third in
                        var firstMonitors: [ObjectPath] = []
                        for index in 1...3 { firstMonitors.append(try await first.managerForAddress("127.0.0.\(index)")) }
                        let perClient = try await dbusError { try await first.managerForAddress("127.0.0.4") }
                        #expect(perClient.name.rawValue == Self.limitExceeded, "\(perClient)")
                        #expect(!perClient.message.isEmpty)
                        #expect(try await first.monitorCount() == 3)

                        // The second client holds fewer than its own cap; the sixth overall is refused.
                        _ = try await second.managerForAddress("127.0.0.5")
                        _ = try await second.managerForAddress("::1")
                        let total = try await dbusError { try await second.managerForAddress("127.0.0.6") }
                        #expect(total.name.rawValue == Self.limitExceeded, "\(total)")
                        let fresh = try await dbusError { try await third.managerForAddress("127.0.0.7") }
                        #expect(fresh.name.rawValue == Self.limitExceeded, "\(fresh)")
                        #expect(try await first.monitorCount() == 5)
                        #expect(try await first.exportedMonitors().count == 5)

                        // The caps count monitors held now, not monitors ever made.
                        try await first.release(firstMonitors[0])
                        let admitted = try await third.managerForAddress("127.0.0.7")
                        #expect(try await third.host(of: admitted) == "127.0.0.7")
                        #expect(try await first.monitorCount() == 5)
                    }
                }
            }
        }
    }

    @Test func releasingTwiceAnswersUnknownObject() async throws {
        try await withLocalReachd { session in
            try await withClient(session) { client in
                let monitor = try await client.managerForAddress("127.0.0.1")
                #expect(try await client.monitorCount() == 1)
                try await client.release(monitor)
                #expect(try await client.monitorCount() == 0)
                #expect(try await client.exportedMonitors() == [])
                let again = try await dbusError { try await client.release(monitor) }
                #expect(again.name.rawValue == "org.freedesktop.DBus.Error.UnknownObject", "\(again)")
                #expect(try await client.monitorCount() == 0)
            }
        }
    }

    @Test func releaseFromAnotherConnectionAnswersNotOwner() async throws {
        try await withLocalReachd { session in
            try await withClient(session) { owner in
                try await withClient(session) { stranger in
                    let monitor = try await owner.managerForAddress("::1")
                    let error = try await dbusError { try await stranger.release(monitor) }
                    #expect(error.name.rawValue == "io.reachd.Reachability1.Error.NotOwner", "\(error)")
                    #expect(!error.message.isEmpty)
                    #expect(try await owner.monitorCount() == 1)
                    #expect(try await stranger.host(of: monitor) == "::1")
                    try await owner.release(monitor)
                    #expect(try await owner.monitorCount() == 0)
                }
            }
        }
    }
}
