internal import ReachdContract
internal import ReachdEngine

/// One manager's target followed on the engine in this process: each new value posted to the
/// watch loop as `.inProcess`, the first at once.
final class InProcessWatch: Sendable {
    private let forwarding: Task<Void, Never>
    private let ending: @Sendable () async -> Void

    init(target: NetworkReachabilityManager.Target, post: AsyncStream<WatchEvent>.Continuation) async throws(ReachabilityError) {
        let engine = InProcessEngine.shared
        if target == .defaultRoute {
            let subscription = try await engine.subscribe()
            forwarding = Task {
                for await value in subscription.values { post.yield(.inProcess(ReachabilityUpdate(inProcess: value))) }
            }
            ending = { await engine.unsubscribe(subscription) }
        } else {
            let watch = try await engine.watch(target)
            post.yield(.inProcess(ReachabilityUpdate(inProcess: watch.first)))
            forwarding = Task {
                for await report in watch.reports { post.yield(.inProcess(ReachabilityUpdate(inProcess: report))) }
            }
            ending = { await engine.release(watch) }
        }
    }

    /// Lets the engine go (it stops with its last user); nothing is posted after this.
    func stop() async {
        forwarding.cancel()
        await ending()
    }
}
