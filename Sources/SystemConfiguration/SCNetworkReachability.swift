import Dispatch
import Foundation
internal import ReachdKit

/// A reachability target, as Apple's `SCNetworkReachability`: the general routing state
/// (0.0.0.0 or ::), the route to an address, or a host monitor for a name. Made by
/// `SCNetworkReachabilityCreateWithName`, `…WithAddress` or `…WithAddressPair`.
///
/// It is a thin front end over the client library's `NetworkReachabilityManager`: the same
/// providers (reachd on the session bus, on the system bus, else reachd's engine in this process)
/// and the same flags, which already carry Apple's bit values.
///
/// While it is scheduled (`SCNetworkReachabilitySetDispatchQueue` or `…ScheduleWithRunLoop`), its
/// manager monitors, and the target lives whether or not the app holds it, as configd's does; the
/// last unscheduling lets it go. The callback runs on that queue or run loop once per change of flags or of the
/// interface they are over, as configd's: a name target also once after its first answer (and a callback set on
/// one that already has an answer gets that answer first); an address target not on scheduling, only when its
/// answer differs from the state compared with (configd's state at scheduling; here the flags the app last
/// read with `GetFlags`, else the first answer). No callback starts after `SCNetworkReachabilitySetCallback(target, nil, nil)`,
/// `SCNetworkReachabilitySetDispatchQueue(target, nil)` or the last unscheduling returns: a call
/// made from another thread while a callback runs waits for it to return.
public final class SCNetworkReachability: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: every stored property that changes is read and written under `lock`, and the
    // callback runs under it too (that is what makes "never after clearing returns" hold). It is
    // recursive so that a callback may call these functions on its own target.
    private let lock = NSRecursiveLock()
    let manager: NetworkReachabilityManager
    /// A name target calls back with its first answer; an address target (the general routing state
    /// too) only when it changes, as configd's: its first answer is what later ones are compared with.
    private let callsBackWithFirstAnswer: Bool
    /// What Apple's description says the target is (`name = example.org`, `address = 192.0.2.1`).
    let what: String
    /// Where the manager's answers arrive, in order, one target at a time.
    private let answers = DispatchQueue(label: "io.reachd.SystemConfiguration.answers")

    private var registration: CallbackRegistration?
    private var schedule = Schedule.none
    /// Bumped by every change of callback or schedule: work handed over before it does nothing.
    private var callbackEpoch = 0
    private var scheduleEpoch = 0
    /// The last flags heard while scheduled.
    private var latestFlags: SCNetworkReachabilityFlags?
    /// The flags, and the interface they were over, last handed to the callback under this schedule.
    private var deliveredFlags: SCNetworkReachabilityFlags?
    private var deliveredInterface: String?
    /// The interface of the last answer heard while scheduled.
    private var latestInterface = ""
    /// The flags `SCNetworkReachabilityGetFlags` last gave the app from a question of its own (not
    /// from what a schedule heard): an address target's first answer under a schedule is compared
    /// with them, so a change between the app's read and that answer still calls back.
    private var flagsAsked: SCNetworkReachabilityFlags?
    /// The target itself, while it is scheduled: configd retains a scheduled target until it is
    /// unscheduled (`CFRetain` in `__SCNetworkReachabilitySetDispatchQueue`), and apps rely on it
    /// (Kickstarter's keeps no reference after `SCNetworkReachabilitySetDispatchQueue`). The cycle is
    /// broken by unscheduling, the one way such a target can end.
    private var keptWhileScheduled: SCNetworkReachability?

    init(_ target: NetworkReachabilityManager.Target, what: String) {
        manager = NetworkReachabilityManager(target)
        if case .domain = target { callsBackWithFirstAnswer = true } else { callsBackWithFirstAnswer = false }
        self.what = what
        manager.setReachabilityStatusChangeHandler(queue: answers, nil)
        manager.setChangeObserver(includingInterfaceMoves: { [weak self] _, update in
            // Unknown is no answer (a name still resolving, no provider yet): Apple calls back
            // only once it knows.
            guard update.status != .unknown else { return }
            self?.heard(SCNetworkReachabilityFlags(rawValue: update.flags.rawValue), over: update.interface)
        })
    }

    deinit {
        manager.setChangeObserver(includingInterfaceMoves: nil)
        manager.stopMonitoring()
        schedule.cancel()
        registration?.releaseInfo()
    }

    public var description: String {
        lock.withLock {
            var text = "<SCNetworkReachability \(Unmanaged.passUnretained(self).toOpaque())> {\(what)"
            if let latestFlags { text += String(format: ", flags = 0x%08x", latestFlags.rawValue) }
            if let context = registration?.contextDescription { text += ", context = \(context)" }
            return text + "}"
        }
    }

    // MARK: What the functions do

    var flagsHeard: SCNetworkReachabilityFlags? {
        lock.withLock { latestFlags }
    }

    /// What a question of `SCNetworkReachabilityGetFlags` gave the app.
    func asked(_ flags: SCNetworkReachabilityFlags) {
        lock.withLock { flagsAsked = flags }
    }

    func setCallback(_ callback: SCNetworkReachabilityCallBack?, context: SCNetworkReachabilityContext?) -> Bool {
        if callback != nil, let context, context.version != 0 { return false }
        lock.withLock {
            let old = registration
            registration = callback.map { CallbackRegistration(callback: $0, context: context ?? SCNetworkReachabilityContext()) }
            callbackEpoch += 1
            old?.releaseInfo()
            compareAnew()
            if callsBackWithFirstAnswer, registration != nil, let latestFlags { handOver(latestFlags) }
        }
        return true
    }

    func setDispatchQueue(_ queue: DispatchQueue?) -> Bool {
        lock.withLock {
            switch (schedule, queue) {
            case (.runLoops, _?):
                return false
            case (_, let queue?):
                reschedule(.queue(queue))
            case (.queue, nil):
                reschedule(.none)
            case (_, nil):
                break
            }
            return true
        }
    }

    func schedule(on runLoop: RunLoop, mode: CFRunLoopMode) -> Bool {
        lock.withLock {
            switch schedule {
            case .queue:
                return false
            case .none:
                reschedule(.runLoops([RunLoopSchedule(runLoop: runLoop, mode: mode)]))
            case .runLoops(let loops):
                guard !loops.contains(where: { $0.isOn(runLoop, mode: mode) }) else { return true }
                reschedule(.runLoops(loops + [RunLoopSchedule(runLoop: runLoop, mode: mode)]), keeping: loops)
            }
            return true
        }
    }

    func unschedule(from runLoop: RunLoop, mode: CFRunLoopMode) -> Bool {
        lock.withLock {
            guard case .runLoops(let loops) = schedule, let index = loops.firstIndex(where: { $0.isOn(runLoop, mode: mode) }) else {
                return false
            }
            var remaining = loops
            remaining.remove(at: index)
            reschedule(remaining.isEmpty ? .none : .runLoops(remaining), keeping: remaining)
            return true
        }
    }

    // MARK: Internals (under `lock`)

    /// Every change of schedule: what was handed to the old one is dropped, and the manager
    /// monitors while there is a schedule (starting again delivers the current answer at once).
    private func reschedule(_ new: Schedule, keeping kept: [RunLoopSchedule] = []) {
        schedule.cancel(except: kept)
        schedule = new
        scheduleEpoch += 1
        compareAnew()
        if case .none = new {
            latestFlags = nil
            latestInterface = ""
            manager.stopMonitoring()
            // The caller holds `self` for the rest of this call: the last release comes after it.
            keptWhileScheduled = nil
        } else {
            keptWhileScheduled = self
            manager.startMonitoring()
        }
    }

    /// After a change of callback or schedule, what the next answer is compared with: nothing for a
    /// name target (it calls back with what it has), what the target has for an address target (it
    /// calls back only when that changes; nothing yet: its first answer).
    private func compareAnew() {
        if callsBackWithFirstAnswer {
            deliveredFlags = nil
        } else {
            (deliveredFlags, deliveredInterface) = (latestFlags, latestInterface)
        }
    }

    /// An answer from the manager (on `answers`). A change of flags calls back, and so does a move
    /// to another interface with the same flags, as configd's does (it compares the interface
    /// index too): an app that keeps a connection per interface hears that the path moved.
    private func heard(_ flags: SCNetworkReachabilityFlags, over interface: String) {
        lock.withLock {
            guard schedule.isScheduled else { return }
            let first = latestFlags == nil
            latestFlags = flags
            latestInterface = interface
            if first && !callsBackWithFirstAnswer {
                // configd compares with the state at scheduling. Here that state arrives a moment
                // later, so it is compared with what the app last read, where it read one (PromiseKit
                // and AFNetworking read the flags beside scheduling): a change in between calls back.
                (deliveredFlags, deliveredInterface) = (flagsAsked ?? flags, interface)
                guard flagsAsked != nil else { return }
            }
            guard registration != nil, flags != deliveredFlags || interface != deliveredInterface else { return }
            handOver(flags)
        }
    }

    private func handOver(_ flags: SCNetworkReachabilityFlags) {
        deliveredFlags = flags
        deliveredInterface = latestInterface
        let epochs = (callback: callbackEpoch, schedule: scheduleEpoch)
        schedule.perform { [weak self] in self?.deliver(flags, epochs) }
    }

    /// On the queue or run loop: the callback, unless the callback or schedule it was meant for
    /// has been changed since. Under the lock, so that a change waits for a callback running.
    private func deliver(_ flags: SCNetworkReachabilityFlags, _ epochs: (callback: Int, schedule: Int)) {
        lock.withLock {
            guard epochs == (callbackEpoch, scheduleEpoch), let registration else { return }
            registration.callback(self, flags, registration.info)
        }
    }
}

extension SCNetworkReachability {
    /// Where callbacks run.
    enum Schedule {
        case none
        case queue(DispatchQueue)
        /// Callbacks run on the first; the others are kept so each can be unscheduled.
        case runLoops([RunLoopSchedule])

        var isScheduled: Bool {
            if case .none = self { return false }
            return true
        }

        func perform(_ work: @escaping @Sendable () -> Void) {
            switch self {
            case .none: break
            case .queue(let queue): queue.async(execute: work)
            case .runLoops(let loops): loops.first?.perform(work)
            }
        }

        func cancel(except kept: [RunLoopSchedule] = []) {
            guard case .runLoops(let loops) = self else { return }
            for loop in loops where !kept.contains(where: { $0 === loop }) { loop.cancel() }
        }
    }
}
