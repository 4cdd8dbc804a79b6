public import Foundation

/// A run loop mode as Core Foundation names it; `rawValue` is what
/// `SCNetworkReachabilityScheduleWithRunLoop` takes:
///
/// ```swift
/// SCNetworkReachabilityScheduleWithRunLoop(target, CFRunLoopGetMain(), CFRunLoopMode.commonModes.rawValue)
/// ```
public struct CFRunLoopMode: RawRepresentable, Hashable, @unchecked Sendable {
    // @unchecked: the string is immutable (made from a literal) and never mutated after.
    public var rawValue: CFString

    public init(rawValue: CFString) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: CFString) {
        self.rawValue = rawValue
    }

    /// The default mode (`kCFRunLoopDefaultMode`, Foundation's `RunLoop.Mode.default`).
    public static let defaultMode = CFRunLoopMode(RunLoop.Mode.default.rawValue as CFString)
    /// The common modes (`kCFRunLoopCommonModes`, Foundation's `RunLoop.Mode.common`).
    public static let commonModes = CFRunLoopMode(RunLoop.Mode.common.rawValue as CFString)

    /// The mode Foundation's `RunLoop` takes.
    var runLoopMode: RunLoop.Mode {
        RunLoop.Mode(String(describing: rawValue))
    }
}

/// Core Foundation's default mode, as Swift sees the C constant.
public let kCFRunLoopDefaultMode: CFRunLoopMode! = .defaultMode
/// Core Foundation's common modes, as Swift sees the C constant.
public let kCFRunLoopCommonModes: CFRunLoopMode! = .commonModes
