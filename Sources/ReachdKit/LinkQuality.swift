extension NetworkPath {
    /// How good the link under a path is, in Apple's four steps (`NWPath.LinkQuality`, iOS 26):
    /// "to tune initial values for algorithms that can scale with the capabilities of the network",
    /// not to gate connection attempts.
    ///
    /// ```swift
    /// let chunkSize = NetworkPathMonitor().currentPath.linkQuality == .minimal ? 16_384 : 262_144
    /// ```
    public enum LinkQuality: String, Sendable, Hashable, CaseIterable {
        /// No measurement.
        case unknown
        case minimal
        case moderate
        case good
    }
}
