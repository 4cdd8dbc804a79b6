internal import ReachdKit

extension NWPath {
    /// How good the link under a path is: Apple's `NWPath.LinkQuality` (iOS 26), the same four
    /// steps as the library's `NetworkPath.LinkQuality`.
    ///
    /// ```swift
    /// let prefetch = path.linkQuality == .good ? 8 : path.linkQuality == .moderate ? 2 : 0
    /// ```
    public enum LinkQuality: Hashable, Sendable {
        /// No measurement is available.
        case unknown
        case minimal
        case moderate
        case good

        init(_ quality: NetworkPath.LinkQuality) {
            switch quality {
            case .unknown: self = .unknown
            case .minimal: self = .minimal
            case .moderate: self = .moderate
            case .good: self = .good
            }
        }
    }
}
