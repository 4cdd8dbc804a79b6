import Dispatch

/// A status change on its way to the handler: `epoch` ties it to one `startMonitoring()`, so
/// nothing is delivered after `stopMonitoring()`.
struct StatusChange: Sendable {
    var epoch: Int
    var update: ReachabilityUpdate
}

/// Where status changes go.
enum StatusDelivery: Sendable {
    /// On a dispatch queue, the handler then the notification.
    case queue(DispatchQueue, handler: (@Sendable (NetworkReachabilityStatus) -> Void)?)
    /// Through one task that awaits each handler call on the caller's actor before the next.
    case actor(AsyncStream<StatusChange>.Continuation)
}

/// Everything a manager holds, behind its mutex.
struct ManagerState {
    var update = ReachabilityUpdate.unknown
    /// The running watcher has reported at least once (so `update` is its answer, not a stale one).
    var hasReport = false
    var lastError: ReachabilityError?
    var delivery = StatusDelivery.queue(.main, handler: nil)
    /// Runs after each handler call (ReachdKitNotifications posts the notification from here).
    var statusObserver: (@Sendable (NetworkReachabilityManager, ReachabilityUpdate) -> Void)?
    /// A move to another interface with the same status and flags is a change too (the
    /// SystemConfiguration product's targets: configd calls back for it).
    var interfaceMovesAreChanges = false
    /// `startMonitoring()` is in effect.
    var isMonitoring = false
    var handlerEpoch = 0
    /// What the handler last got, to call it only when (status, flags) change.
    var lastHandled: ReachabilityUpdate?
    var streams: [Int: AsyncStream<ReachabilityUpdate>.Continuation] = [:]
    /// Consumers of `lastErrorUpdates`.
    var errorStreams: [Int: AsyncStream<ReachabilityError?>.Continuation] = [:]
    var nextStreamID = 0
    var watcher: ReachabilityWatcher?
    var watcherID = 0
}
