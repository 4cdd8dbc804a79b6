import Foundation

/// The call was successful.
public var kSCStatusOK: Int { 0 }
/// A nonspecific failure occurred.
public var kSCStatusFailed: Int { 1001 }
/// An invalid argument was specified.
public var kSCStatusInvalidArgument: Int { 1002 }
/// Network reachability cannot be determined.
public var kSCStatusReachabilityUnknown: Int { 4001 }

/// The status of the calling thread's most recent SCNetworkReachability call, as Apple's
/// `SCError()` gives it: `kSCStatusOK` after a call that succeeded, else why it did not.
///
/// ```swift
/// guard SCNetworkReachabilityGetFlags(target, &flags) else {
///     print(String(cString: SCErrorString(SCError())))
///     return
/// }
/// ```
@discardableResult
public func SCError() -> Int32 {
    SCStatus.current
}

/// A sentence for a status from `SCError()`.
@discardableResult
public func SCErrorString(_ status: Int32) -> UnsafePointer<CChar> {
    let text: StaticString =
        switch Int(status) {
        case kSCStatusOK: "Success!"
        case kSCStatusFailed: "Failed!"
        case kSCStatusInvalidArgument: "Invalid argument!"
        case kSCStatusReachabilityUnknown: "Network reachability cannot be determined."
        default: "Unknown error"
        }
    // A static string lives as long as the program, as Apple's strings do.
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// The calling thread's status, as Apple keeps it: per thread, set by every call.
enum SCStatus {
    private static let key = "io.reachd.SystemConfiguration.SCError"

    static var current: Int32 {
        (Thread.current.threadDictionary[key] as? Int32) ?? Int32(kSCStatusOK)
    }

    static func set(_ status: Int) {
        Thread.current.threadDictionary[key] = Int32(status)
    }

    /// Sets the status to `kSCStatusOK` on success or `failure` otherwise, and returns `succeeded`.
    static func result(_ succeeded: Bool, failure: Int = kSCStatusInvalidArgument) -> Bool {
        set(succeeded ? kSCStatusOK : failure)
        return succeeded
    }
}
