import Dispatch
import Foundation
import ReachdKit
import ReachdKitNotifications
import ReachdTestSupport
import Testing

/// `startMonitoring()` against the real reachd over python-dbusmock's NetworkManager: the
/// current status at once, then each change, in order, on every channel.
@Suite("Monitoring the default route", .timeLimit(.minutes(2)))
struct MonitoringTests {
    @Test("the handler sees the initial status, then each change in order, and nothing after stopMonitoring")
    func handlerSeesInitialStatusThenEachChange() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            // The default queue, as in AFNetworking: the main queue.
            manager.setReachabilityStatusChangeHandler { status in
                dispatchPrecondition(condition: .onQueue(.main))
                seen.append(status)
            }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            #expect(manager.flags == [.reachable])
            #expect(manager.isReachable && manager.isReachableViaWiFi && !manager.isReachableViaWWAN)

            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .notReachable])
            #expect(manager.flags == [])
            #expect(!manager.isReachable)

            // A gsm primary connection changes nothing while disconnected, then makes the path WWAN.
            try await world.networkManager.setManager("PrimaryConnectionType", "s", "gsm")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .notReachable, .reachableViaWWAN])
            #expect(manager.flags == [.reachable, .isWWAN])
            #expect(manager.isReachableViaWWAN)
            #expect(manager.currentUpdate.interfaceType == .wwan)
            #expect(manager.currentUpdate.isMetered)

            try await world.networkManager.setManager("PrimaryConnectionType", "s", "")
            try await seen.waitUntil([.reachableViaWiFi, .notReachable, .reachableViaWWAN, .reachableViaWiFi])

            manager.stopMonitoring()
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            try await Task.sleep(for: .milliseconds(300))
            #expect(seen.values == [.reachableViaWiFi, .notReachable, .reachableViaWWAN, .reachableViaWiFi])
        }
    }

    @Test("the notification and the update stream agree with the handler through a burst of changes")
    func notificationAndStreamAgreeWithHandler() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let handled = Recorder<NetworkReachabilityStatus>()
            let notified = Recorder<NetworkReachabilityStatus>()
            let streamed = Recorder<ReachabilityUpdate>()
            let queue = DispatchQueue(label: "reachability handler")
            manager.setReachabilityStatusChangeHandler(queue: queue) { status in
                dispatchPrecondition(condition: .onQueue(queue))
                handled.append(status)
            }
            manager.postNotifications()
            let observer = NotificationCenter.default.addObserver(
                forName: .reachabilityDidChange, object: manager, queue: nil
            ) { notification in
                guard let status = notification.userInfo?[NetworkReachabilityManager.statusUserInfoKey]
                    as? NetworkReachabilityStatus else { return }
                notified.append(status)
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            let consumer = Task {
                for await update in manager.updates { streamed.append(update) }
            }
            defer { consumer.cancel() }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await handled.waitUntil([.reachableViaWiFi])

            // One after the other, without waiting: each is published, and must arrive in order.
            for state: UInt32 in [20, 70, 20, 70] { try await world.networkManager.setState(state, emittingStateChanged: false) }

            let expected: [NetworkReachabilityStatus] = [.reachableViaWiFi, .notReachable, .reachableViaWiFi, .notReachable, .reachableViaWiFi]
            try await handled.waitUntil(expected)
            try await notified.waitUntil(expected)
            try await eventually(timeout: .seconds(15), "the stream saw \(expected): \(streamed.values.map(\.status))") {
                streamed.values.map(\.status) == expected
            }
            #expect(streamed.values.map(\.flags) == [[.reachable], [], [.reachable], [], [.reachable]])
            #expect(streamed.values.last?.interfaceType == .other)
            #expect(streamed.values.last?.connectivity == .full)
            #expect(streamed.values.last?.backend == .networkmanager)
        }
    }

    @Test("a handler on an actor runs isolated to it, in order")
    func handlerOnActor() async throws {
        actor Log {
            var statuses: [NetworkReachabilityStatus] = []
            func add(_ status: NetworkReachabilityStatus) { statuses.append(status) }
        }
        try await withWorld { world in
            let manager = world.manager()
            let log = Log()
            manager.setReachabilityStatusChangeHandler(on: log) { log, status in log.add(status) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await eventually(timeout: .seconds(15), "the actor saw the initial status") { await log.statuses == [.reachableViaWiFi] }
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "the actor saw the change") { await log.statuses == [.reachableViaWiFi, .notReachable] }
        }
    }

    @Test("an update stream monitors by itself and starts with the current value")
    func streamStartsWithCurrentValue() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let manager = world.manager()
            var iterator = manager.updates.makeAsyncIterator()
            let first = await iterator.next()
            #expect(first?.status == .notReachable)
            #expect(first?.flags == [])
            #expect(manager.networkReachabilityStatus == .notReachable)
            try await world.networkManager.setState(70, emittingStateChanged: false)
            let second = await iterator.next()
            #expect(second?.status == .reachableViaWiFi)
        }
    }
}
