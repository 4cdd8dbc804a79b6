import Foundation

extension Notification.Name {
    /// Posted by a monitoring `NetworkReachabilityManager` (the notification's `object`) after each
    /// status change, right after its handler: `userInfo[NetworkReachabilityManager.statusUserInfoKey]`
    /// is the `NetworkReachabilityStatus`, `userInfo[NetworkReachabilityManager.flagsUserInfoKey]`
    /// the `ReachabilityFlags`.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .reachabilityDidChange, object: nil, queue: nil) { note in
    ///     let status = note.userInfo?[NetworkReachabilityManager.statusUserInfoKey] as? NetworkReachabilityStatus
    /// }
    /// ```
    public static let reachabilityDidChange = Notification.Name("io.reachd.Reachability.reachabilityDidChange")
}
