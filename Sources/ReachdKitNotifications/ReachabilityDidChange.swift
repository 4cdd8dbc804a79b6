import Foundation
import ReachdKit

extension Notification.Name {
    /// Posted by a `NetworkReachabilityManager` (the notification's `object`) that was told to
    /// `postNotifications()`, after each status change, right after its handler:
    /// `userInfo[NetworkReachabilityManager.statusUserInfoKey]` is the `NetworkReachabilityStatus`,
    /// `userInfo[NetworkReachabilityManager.flagsUserInfoKey]` the `ReachabilityFlags`.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .reachabilityDidChange, object: nil, queue: nil) { note in
    ///     let status = note.userInfo?[NetworkReachabilityManager.statusUserInfoKey] as? NetworkReachabilityStatus
    /// }
    /// ```
    public static let reachabilityDidChange = Notification.Name("io.reachd.Reachability.reachabilityDidChange")
}

/// AFNetworking's notification, for apps that want it. It lives apart from `ReachdKit`
/// because `NotificationCenter` needs Foundation, and Foundation carries ICU (36 MB) into every
/// program that links it; apps that use handlers or `updates` do without.
extension NetworkReachabilityManager {
    /// The notification posted after each status change (`AFNetworkingReachabilityDidChangeNotification`).
    public static let reachabilityDidChange = Notification.Name.reachabilityDidChange
    /// User-info key of `reachabilityDidChange`: the new `NetworkReachabilityStatus`
    /// (`AFNetworkingReachabilityNotificationStatusItem`).
    public static let statusUserInfoKey = "NetworkReachabilityNotificationStatusItem"
    /// User-info key of `reachabilityDidChange`: the new `ReachabilityFlags`.
    public static let flagsUserInfoKey = "NetworkReachabilityNotificationFlagsItem"

    /// Posts `reachabilityDidChange` on `NotificationCenter.default` after each status change,
    /// right after the handler and on its queue or actor, as AFNetworking does.
    ///
    /// ```swift
    /// import ReachdKitNotifications
    /// NetworkReachabilityManager.shared.postNotifications()
    /// NetworkReachabilityManager.shared.startMonitoring()
    /// ```
    public func postNotifications() {
        setStatusChangeObserver { manager, update in
            NotificationCenter.default.post(
                name: .reachabilityDidChange, object: manager,
                userInfo: [Self.statusUserInfoKey: update.status, Self.flagsUserInfoKey: update.flags])
        }
    }
}
