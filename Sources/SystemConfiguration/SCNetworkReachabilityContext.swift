/// The function a target calls with its flags: on the dispatch queue or run loop it is scheduled on,
/// once after the first answer and then once per change of flags.
///
/// Apple declares it `@convention(c)`; a C function type cannot carry Swift's
/// `SCNetworkReachability` and `SCNetworkReachabilityFlags` on Linux, so it is a `@Sendable` Swift
/// function type here (a C function pointer captures nothing and is Sendable, so code that keeps one
/// in a `static let` compiles in Swift 6 mode as on Apple's systems). The call sites compile the
/// same: a closure literal (capturing nothing, as Apple's requires) or a function.
///
/// ```swift
/// let callback: SCNetworkReachabilityCallBack = { _, flags, info in
///     guard let info else { return }
///     Unmanaged<Observer>.fromOpaque(info).takeUnretainedValue().flagsChanged(flags)
/// }
/// ```
public typealias SCNetworkReachabilityCallBack = @Sendable (SCNetworkReachability, SCNetworkReachabilityFlags, UnsafeMutableRawPointer?) -> Void

/// What `SCNetworkReachabilitySetCallback` hands the callback (`info`), and how the target keeps it:
/// `retain` is called once when the context is set, `release` once when it is replaced, cleared, or
/// the target goes away (Core Foundation's contract, which code relies on to break a retain cycle).
/// `version` must be 0. `copyDescription`'s string appears in the target's `description`.
///
/// `retain` and `release` are C function types, as on Apple's systems; `copyDescription` returns
/// `Unmanaged<CFString>`, which no C function type can on Linux, so it is a `@Sendable` Swift function type
/// (closure literals compile the same).
public struct SCNetworkReachabilityContext {
    public var version: CFIndex
    public var info: UnsafeMutableRawPointer?
    public var retain: (@convention(c) (UnsafeRawPointer) -> UnsafeRawPointer)?
    public var release: (@convention(c) (UnsafeRawPointer) -> Void)?
    public var copyDescription: (@Sendable (UnsafeRawPointer) -> Unmanaged<CFString>)?

    public init() {
        self.init(version: 0, info: nil, retain: nil, release: nil, copyDescription: nil)
    }

    public init(
        version: CFIndex,
        info: UnsafeMutableRawPointer?,
        retain: (@convention(c) (UnsafeRawPointer) -> UnsafeRawPointer)?,
        release: (@convention(c) (UnsafeRawPointer) -> Void)?,
        copyDescription: (@Sendable (UnsafeRawPointer) -> Unmanaged<CFString>)?
    ) {
        self.version = version
        self.info = info
        self.retain = retain
        self.release = release
        self.copyDescription = copyDescription
    }
}
