/// Whether `ReachabilityChanged` is due. Which properties a `PropertiesChanged` lists is the
/// contract's business (`ReachdContract`'s property tables).
///
/// ```swift
/// if new.signalDue(from: old) { emitReachabilityChanged(new.status, new.flags) }
/// ```
extension PublishedReachability {
    /// Whether `ReachabilityChanged(status, flags)` must be emitted: exactly when that pair changed.
    public func signalDue(from old: PublishedReachability) -> Bool {
        status != old.status || flags != old.flags
    }
}
