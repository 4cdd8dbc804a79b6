import Foundation
import Glibc
import ReachdKit
import ReachdTestSupport
import Testing

/// `init(domain:)` and `init(address:)`: monitors the service keeps for this client
/// (docs/app-developers/dbus-contract.md, "Host monitors"), made by
/// `ManagerForDomain`/`ManagerForAddress` and let go by `Release()`.
///
/// Loopback answers the same on every machine: Reachable, IsLocalAddress, IsDirect.
@Suite(
    "Host managers", .timeLimit(.minutes(2)))
struct HostManagerTests {
    static let loopback: ReachabilityFlags = [.reachable, .isLocalAddress, .isDirect]

    /// The service's count of live host monitors.
    func monitorCount(_ world: World) async throws -> Int {
        let printed = try await world.serviceProperty("MonitorCount")   // `u 3`
        return try #require(Int(printed.dropFirst(2)), "MonitorCount: \(printed)")
    }

    @Test("init(address:) reports the monitor's status, and stopMonitoring releases the monitor", arguments: ["127.0.0.1", "::1"])
    func addressManagerReportsAndReleases(address: String) async throws {
        try await withWorld { world in
            let before = try await monitorCount(world)
            let manager = world.manager(.address(address))
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            try await seen.waitUntil([.reachableViaWiFi])
            #expect(manager.flags.isSuperset(of: Self.loopback))
            #expect(manager.currentUpdate.interface == "lo")
            #expect(try await monitorCount(world) == before + 1)
            manager.stopMonitoring()
            try await eventually(timeout: .seconds(15), "the monitor is released") { try await monitorCount(world) == before }
        }
    }

    @Test("init(domain:) follows a name the resolver knows")
    func domainManagerReportsAndReleases() async throws {
        try await withWorld { world in
            let before = try await monitorCount(world)
            let manager = world.manager(.domain("localhost"))
            manager.startMonitoring()
            try await eventually(timeout: .seconds(15), "localhost is reachable") { manager.networkReachabilityStatus == .reachableViaWiFi }
            #expect(manager.flags.isSuperset(of: Self.loopback))
            #expect(try await monitorCount(world) == before + 1)
            manager.stopMonitoring()
            try await eventually(timeout: .seconds(15), "the monitor is released") { try await monitorCount(world) == before }
        }
    }

    @Test("a host manager let go while monitoring releases its monitor")
    func deinitReleasesMonitor() async throws {
        try await withWorld { world in
            let before = try await monitorCount(world)
            do {
                let manager = world.manager(.address("127.0.0.1"))
                manager.startMonitoring()
                try await eventually(timeout: .seconds(15), "the monitor is made") { try await monitorCount(world) == before + 1 }
                // The service counts the monitor before the client has read it.
                try await eventually(timeout: .seconds(15), "the manager has read its monitor") { manager.isReachable }
            }
            try await eventually(timeout: .seconds(15), "the monitor is released") { try await monitorCount(world) == before }
        }
    }

    @Test("ending a host manager's update stream releases its monitor")
    func streamEndReleasesMonitor() async throws {
        try await withWorld { world in
            let before = try await monitorCount(world)
            let manager = world.manager(.address("127.0.0.1"))
            for await update in manager.updates {
                #expect(update.status == .reachableViaWiFi)
                #expect(try await monitorCount(world) == before + 1)
                break
            }
            try await eventually(timeout: .seconds(15), "the monitor is released") { try await monitorCount(world) == before }
        }
    }

    @Test("reachd restarted: the host monitor is made again on the new instance")
    func monitorRecreatedAfterRestart() async throws {
        try await withWorld { world in
            let manager = world.manager(.address("127.0.0.1"))
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            world.service?.stop(SIGKILL)
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
            try await world.startService()
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .reachableViaWiFi])
            #expect(try await monitorCount(world) == 1)
        }
    }

    @Test("an invalid host is refused: the manager says why, reachctl exits 4")
    func invalidHost() async throws {
        try await withWorld { world in
            let manager = world.manager(.domain("bad..name"))
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await eventually(timeout: .seconds(15), "the refusal is reported") { manager.lastError?.name == ReachabilityError.invalidHost }
            #expect(manager.networkReachabilityStatus == .unknown)
            let check = try await world.reachctl("host", "bad..name")
            #expect(check.status == 4, "\(check.transcript)")
            let watch = try await world.reachctl("host", "bad..name", "--watch")
            #expect(watch.status == 4, "\(watch.transcript)")
            let wait = try await world.reachctl("wait", "--host", "bad..name", "--timeout", "10")
            #expect(wait.status == 4, "\(wait.transcript)")
        }
    }

    @Test("reachctl host answers with CheckHost; --watch and wait --host follow a monitor")
    func reachctlHost() async throws {
        try await withWorld { world in
            let english = ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"]
            let check = try await world.reachctl("host", "127.0.0.1", "--json", environment: english)
            #expect(check.succeeded, "\(check.transcript)")
            let object = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: Any]
            #expect(object?["host"] as? String == "127.0.0.1")
            #expect(object?["status"] as? Int == 2)
            #expect((object?["flagNames"] as? [String]).map { Set($0).isSuperset(of: Self.loopback.names) } == true)

            let watch = try world.backgroundReachctl("host", "127.0.0.1", "--watch", environment: english)
            defer { watch.stop() }
            try await eventually(timeout: .seconds(15), "host --watch printed a line: \(watch.output)") { watch.lines.count == 1 }
            #expect(watch.lines[0].hasPrefix("127.0.0.1: Reachable via WiFi  flags: Reachable|IsLocalAddress|IsDirect"))

            #expect(try await world.reachctl("wait", "--host", "127.0.0.1", "--timeout", "10").status == 0)
            #expect(try await world.reachctl("wait", "--host", "127.0.0.1", "--timeout", "0").status == 0)
        }
    }

    @Test("fetchUpdate for a host makes, reads and releases a monitor")
    func fetchUpdateForHost() async throws {
        try await withWorld { world in
            let before = try await monitorCount(world)
            let update = try await world.manager(.address("127.0.0.1")).fetchUpdate()
            #expect(update.status == .reachableViaWiFi)
            #expect(update.interface == "lo")
            #expect(try await monitorCount(world) == before)
        }
    }
}
