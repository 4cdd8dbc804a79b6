/// The function a target calls with its flags: on the dispatch queue or run loop it is scheduled on,
/// once per change of flags or of the interface they are over (a name target also once after its
/// first answer; an address target not on scheduling, as configd's).
///
/// Apple declares it `@convention(c)`; a C function type cannot carry Swift's
/// `SCNetworkReachability` on Linux (a Swift class is not representable in C), so it is a plain
/// Swift function type here. What compiles on Apple's systems compiles here, in Swift 5 and Swift 6
/// modes and without a warning: a closure literal (capturing nothing, as Apple's requires), a
/// global function (RxSwift's `callback`), a local one (Mixpanel's `reachabilityCallback`). It is
/// not `@Sendable`: passing a global function to a `@Sendable` parameter warns in Swift 5 mode
/// ("converting non-Sendable function value"), which stops an SDK built with warnings as errors.
/// The one difference: Apple's, a C function pointer, may be kept in a `static let` under Swift 6's
/// checking; this one may not (keep it in a local or an instance property, as real code does).
///
/// ```swift
/// let callback: SCNetworkReachabilityCallBack = { _, flags, info in
///     guard let info else { return }
///     Unmanaged<Observer>.fromOpaque(info).takeUnretainedValue().flagsChanged(flags)
/// }
/// ```
public typealias SCNetworkReachabilityCallBack = (SCNetworkReachability, SCNetworkReachabilityFlags, UnsafeMutableRawPointer?) -> Void

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
