import Foundation
import Glibc
import Reachability
import TestSupport
import Testing

/// The client follows the service's presence by itself: activation, absence, restarts, replacement.
@Suite("Following reachd on the bus", .timeLimit(.minutes(2)))
struct ServiceAvailabilityTests {
    @Test("reachd killed and restarted mid-watch: Unknown meanwhile, then the client reads the new instance")
    func clientRecoversWhenServiceRestarts() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            let streamed = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            let consumer = Task { for await update in manager.updates { streamed.append(update.status) } }
            defer { consumer.cancel() }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])

            world.service?.stop(SIGKILL)
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
            #expect(manager.flags == [])

            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.startService()
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .notReachable])
            // Changes of the new instance arrive too: its signals are followed, not the old one's.
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .notReachable, .reachableViaWiFi])
            try await streamed.waitUntil([.reachableViaWiFi, .unknown, .notReachable, .reachableViaWiFi])
        }
    }

    @Test("reachd --replace taking the name over: the client follows the new owner without a gap")
    func clientFollowsReplacement() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            let first = try #require(world.service)
            try await world.startService(arguments: ["--replace"])
            try await eventually(timeout: .seconds(15), "the replaced reachd exits") { first.exitStatus != nil }
            #expect(first.exitStatus == 0)
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .notReachable])
        }
    }

    @Test("no service and no activation: Unknown with the reason, then reachd starting is picked up")
    func unknownUntilServiceAppears() async throws {
        try await withWorld(.absent) { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.unknown])
            #expect(manager.networkReachabilityStatus == .unknown)
            #expect(manager.lastError?.name == ReachabilityError.serviceUnknown)

            try await world.startService()
            try await seen.waitUntil([.unknown, .reachableViaWiFi])
            #expect(manager.lastError == nil)
        }
    }

    @Test("reachd installed for D-Bus activation: startMonitoring starts it and reports its status first")
    func activationStartsTheService() async throws {
        try await withWorld(.activatable) { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            // The activated reachd is the bus's child, not ours: stop it before the bus goes.
            if let pid = try await world.session.processID(of: ReachdProcess.busName) { kill(pid, SIGTERM) }
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
        }
    }

    @Test("the session bus going away: Unknown, with the reason")
    func sessionBusLost() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            world.session.stop()
            // The bus may drop reachd first and announce that (Unknown), then drop us.
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
            try await eventually(timeout: .seconds(15), "the lost connection is the reason: \(String(describing: manager.lastError))") {
                manager.lastError?.isServiceUnavailable == true
            }
        }
    }

    @Test("one-shot fetchUpdate reads every property; without a service it throws ServiceUnknown")
    func fetchUpdate() async throws {
        try await withWorld(.absent) { world in
            let absent = await #expect(throws: ReachabilityError.self) { try await world.manager().fetchUpdate() }
            #expect(absent?.name == ReachabilityError.serviceUnknown)
            #expect(absent?.isServiceUnavailable == true)
            try await world.startService()
            let update = try await world.manager().fetchUpdate()
            #expect(update == ReachabilityUpdate(status: .reachableViaWiFi, flags: [.reachable], interfaceType: .other,
                                                 interface: "", isMetered: false, connectivity: .full,
                                                 backend: .networkmanager))
        }
    }
}
