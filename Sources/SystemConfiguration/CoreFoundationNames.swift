public import Foundation

// Core Foundation's names as code written for Apple's systems uses them beside SystemConfiguration.
// swift-corelibs-foundation keeps CoreFoundation to itself, so on Linux none of them exists; each is
// here the Foundation type that behaves as Apple's toll-free bridged one does in that code:
// `description as CFString`, `Unmanaged<CFString>`, `nil` or `kCFAllocatorDefault` allocators,
// `CFRunLoopGetMain()` with `RunLoop.main.run()` turning it.

/// Core Foundation's string: `NSString`, to which a `String` bridges with `as CFString`.
public typealias CFString = NSString

/// Core Foundation's signed index and count type.
public typealias CFIndex = Int

/// Core Foundation's run loop: Foundation's `RunLoop`, which turns the same loop on Linux.
public typealias CFRunLoop = RunLoop

/// An allocator as Core Foundation's functions take one. Every function here allocates with Swift's
/// own allocator, so code passes `nil` or `kCFAllocatorDefault`, as it does on Apple's systems.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator: `nil`, as it is in Core Foundation.
public let kCFAllocatorDefault: CFAllocator? = nil

/// The run loop of the main thread (`RunLoop.main`).
@discardableResult
public func CFRunLoopGetMain() -> CFRunLoop {
    RunLoop.main
}

/// The run loop of the calling thread (`RunLoop.current`).
@discardableResult
public func CFRunLoopGetCurrent() -> CFRunLoop {
    RunLoop.current
}

/// Runs the calling thread's run loop in its default mode until nothing is scheduled on it, as
/// Core Foundation's does (a target scheduled with `SCNetworkReachabilityScheduleWithRunLoop`
/// keeps it running until it is unscheduled).
public func CFRunLoopRun() {
    RunLoop.current.run()
}
