/// A callback and the context it was set with, as the target holds them: `info` retained once
/// through the context's `retain` when set, released once through its `release` when let go.
struct CallbackRegistration {
    let callback: SCNetworkReachabilityCallBack
    let info: UnsafeMutableRawPointer?
    private let release: (@convention(c) (UnsafeRawPointer) -> Void)?
    private let copyDescription: (@Sendable (UnsafeRawPointer) -> Unmanaged<CFString>)?

    init(callback: @escaping SCNetworkReachabilityCallBack, context: SCNetworkReachabilityContext) {
        self.callback = callback
        if let info = context.info, let retain = context.retain {
            self.info = UnsafeMutableRawPointer(mutating: retain(info))
        } else {
            self.info = context.info
        }
        release = context.release
        copyDescription = context.copyDescription
    }

    /// Called exactly once, when the registration is replaced, cleared or its target goes away.
    func releaseInfo() {
        if let info, let release { release(info) }
    }

    /// The context's own description (`copyDescription`), if it has one.
    var contextDescription: String? {
        guard let info, let copyDescription else { return nil }
        return String(describing: copyDescription(info).takeRetainedValue())
    }
}
