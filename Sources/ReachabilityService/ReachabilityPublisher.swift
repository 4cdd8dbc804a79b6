import DBus
import ReachabilityCore

/// What reachd publishes on `/io/reachd/Reachability1`.
typealias ReachabilityPublisher = AnnouncedState<PublishedReachability>

extension AnnouncedState where Value == PublishedReachability {
    static var path: ObjectPath { "/io/reachd/Reachability1" }
    static var interface: InterfaceName { "io.reachd.Reachability1" }

    /// Unknown until the first state is known.
    convenience init() {
        self.init(.unknown, path: Self.path, interface: Self.interface)
    }
}
