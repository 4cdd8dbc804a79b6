import ReachdDBus
import ReachdContract
import ReachdCore

/// What reachd publishes on `/io/reachd/Reachability1`.
typealias ReachabilityPublisher = AnnouncedState<PublishedReachability>

extension AnnouncedState where Value == PublishedReachability {
    /// Unknown until the first state is known.
    convenience init() {
        self.init(.unknown, path: ReachdContract.objectPath, interface: ReachdContract.interface)
    }
}
