import Foundation
import SystemConfiguration

/// A test's context object: counts the target's retains and releases of it, and hands the first
/// callback's flags (on the main queue) to the test.
final class ContextProbe: @unchecked Sendable {
    // @unchecked: every field is under `lock`.
    private let lock = NSLock()
    private var retains = 0
    private var releases = 0
    private var flags: SCNetworkReachabilityFlags?
    private var waiter: CheckedContinuation<SCNetworkReachabilityFlags, Never>?

    var counts: (retains: Int, releases: Int) { lock.withLock { (retains, releases) } }

    func context() -> SCNetworkReachabilityContext {
        SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(self).toOpaque(),
            retain: { info in
                let probe = Unmanaged<ContextProbe>.fromOpaque(info)
                probe.takeUnretainedValue().lock.withLock { probe.takeUnretainedValue().retains += 1 }
                return UnsafeRawPointer(probe.retain().toOpaque())
            },
            release: { info in
                let probe = Unmanaged<ContextProbe>.fromOpaque(info)
                probe.takeUnretainedValue().lock.withLock { probe.takeUnretainedValue().releases += 1 }
                probe.release()
            },
            copyDescription: { _ in Unmanaged.passRetained("ContextProbe" as CFString) })
    }

    /// A function, as RxSwift's and Mixpanel's are (a `static let` of the type is not allowed in
    /// Swift 6 mode: the type is not `@Sendable`, see `SCNetworkReachabilityCallBack`).
    static func callback(_ target: SCNetworkReachability, _ flags: SCNetworkReachabilityFlags, _ info: UnsafeMutableRawPointer?) {
        dispatchPrecondition(condition: .onQueue(.main))
        guard let info else { return }
        Unmanaged<ContextProbe>.fromOpaque(info).takeUnretainedValue().heard(flags)
    }

    private func heard(_ flags: SCNetworkReachabilityFlags) {
        let waiter = lock.withLock {
            defer { self.waiter = nil }
            if self.flags == nil { self.flags = flags }
            return self.waiter
        }
        waiter?.resume(returning: flags)
    }

    /// The flags of the first callback, awaited as a test awaits an expectation (at most 20 s).
    func firstFlags() async throws -> SCNetworkReachabilityFlags {
        let waiting = Task {
            await withCheckedContinuation { continuation in
                let known = lock.withLock {
                    if flags == nil { waiter = continuation }
                    return flags
                }
                if let known { continuation.resume(returning: known) }
            }
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            heard([])  // wakes the waiter: the test then fails on the flags, not by hanging
        }
        defer { timeout.cancel() }
        return await waiting.value
    }
}
