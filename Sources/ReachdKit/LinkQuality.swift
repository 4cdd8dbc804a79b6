extension NetworkPath {
    /// How good the link under a path is, in Apple's four steps (`NWPath.LinkQuality`, iOS 26):
    /// "to tune initial values for algorithms that can scale with the capabilities of the network",
    /// not to gate connection attempts. The service's `LinkQuality` (docs/mapping.md, "Link
    /// quality"): one type, graded once, by the engine.
    ///
    /// ```swift
    /// let chunkSize = NetworkPathMonitor().currentPath.linkQuality == .minimal ? 16_384 : 262_144
    /// ```
    public typealias LinkQuality = ReachdCore.LinkQuality
}
