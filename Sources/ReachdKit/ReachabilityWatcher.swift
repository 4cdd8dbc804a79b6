internal import ReachdDBus

/// Follows one target for a manager, on the provider that answers, and reports each new value.
///
/// One task runs `WatchLoop.run`, which consumes `WatchEvent`s in order from one stream fed
/// by the bus subscription (through a forwarding task), its timers, the activation request
/// and `stop()`. Only that task touches the loop's state, so it needs no lock, and a signal
/// can never overtake an earlier one.
final class ReachabilityWatcher: Sendable {
    private let events: AsyncStream<WatchEvent>.Continuation

    init(
        target: NetworkReachabilityManager.Target, service: ServiceChoice,
        report: @escaping @Sendable (ReachabilityUpdate) -> Void,
        reportError: @escaping @Sendable (ReachabilityError?) -> Void
    ) {
        // Unbounded: besides stop and timers, the events are the service's signals, a pair per
        // change, already bounded by the connection's own subscription buffer.
        let (stream, continuation) = AsyncStream.makeStream(of: WatchEvent.self)
        events = continuation
        Task {
            let choice: ServiceChoice
            do throws(ReachabilityError) {
                choice = try service.resolved()
            } catch {
                reportError(error)
                report(.unknown)
                return
            }
            var loop = WatchLoop(target: target, choice: choice, events: stream,
                                 post: continuation, report: report, reportError: reportError)
            await loop.run()
        }
    }

    /// Ends the watch: the host monitor is released, the connection closed. Returns at once;
    /// nothing is reported after this.
    func stop() {
        events.yield(.stop)
    }
}
