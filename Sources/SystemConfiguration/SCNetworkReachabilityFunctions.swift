import Dispatch
import Foundation
internal import ReachdEngine
internal import ReachdKit

// Every function is @discardableResult: Swift never warns about an unused result of a C function,
// and code written against Apple's (imported from C) ignores some (`SetCallback(t, nil, nil)`).

/// A target for a host name, as Apple's: a host monitor, resolved again after each network change.
/// An IPv4 or IPv6 literal is the route to that address. A string that is no host name at all
/// (empty, `bad..name`, a legacy form such as `127.1`: what reachd refuses) gives `nil` and
/// `kSCStatusInvalidArgument`, where Apple's would make a target whose lookup fails.
///
/// ```swift
/// guard let target = SCNetworkReachabilityCreateWithName(nil, "example.org") else { return }
/// ```
@discardableResult
public func SCNetworkReachabilityCreateWithName(_ allocator: CFAllocator?, _ nodename: UnsafePointer<CChar>) -> SCNetworkReachability? {
    let name = String(cString: nodename)
    // The engine's own check, the one reachd makes of every host it is asked about.
    guard (try? HostSpecification(domain: name)) != nil else {
        _ = SCStatus.result(false)
        return nil
    }
    _ = SCStatus.result(true)
    return SCNetworkReachability(.init(host: name), what: "name = \(name)")
}

/// A target for an address: 0.0.0.0 or `::` is the general routing state (the default route),
/// any other the route to that address. `address` is a `sockaddr_in` or `sockaddr_in6` (read by
/// its family: Linux's `sockaddr` has no length).
///
/// ```swift
/// var zeroAddress = sockaddr()
/// zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
/// zeroAddress.sa_family = sa_family_t(AF_INET)
/// let target = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress)
/// ```
@discardableResult
public func SCNetworkReachabilityCreateWithAddress(_ allocator: CFAllocator?, _ address: UnsafePointer<sockaddr>) -> SCNetworkReachability? {
    guard let target = SocketAddressTarget(address) else {
        _ = SCStatus.result(false)
        return nil
    }
    _ = SCStatus.result(true)
    return SCNetworkReachability(target.target, what: target.description)
}

/// A target for a pair of addresses: the route to `remoteAddress`, or to `localAddress` when there
/// is no remote one (reachd follows routes to a destination; the local address does not choose one).
@discardableResult
public func SCNetworkReachabilityCreateWithAddressPair(
    _ allocator: CFAllocator?, _ localAddress: UnsafePointer<sockaddr>?, _ remoteAddress: UnsafePointer<sockaddr>?
) -> SCNetworkReachability? {
    guard let address = remoteAddress ?? localAddress else {
        _ = SCStatus.result(false)
        return nil
    }
    return SCNetworkReachabilityCreateWithAddress(allocator, address)
}

/// The target's flags now. While the target is scheduled these are the last flags its monitor heard;
/// otherwise it asks once, as Apple's does, and waits for the answer **at most one second**. A name
/// whose lookup fails gives `true` with flags 0 as soon as it fails, and so does every call in the
/// next 30 s whose own lookup has no answer within 100 ms (a resolver refusing by ICMP answers at
/// most once a second); a name that takes longer to resolve gives `false` with `SCError()` `kSCStatusReachabilityUnknown`
/// (schedule the target to hear the answer when it comes), as does no answer at all; a name reachd
/// refuses as no host name (`bad..name`) gives `false` with `kSCStatusInvalidArgument`. Do not
/// call it from a Swift concurrency task's thread while that pool is saturated: the answer is made
/// on that pool.
///
/// ```swift
/// var flags = SCNetworkReachabilityFlags()
/// if SCNetworkReachabilityGetFlags(target, &flags), flags.contains(.reachable) { … }
/// ```
@discardableResult
public func SCNetworkReachabilityGetFlags(_ target: SCNetworkReachability, _ flags: UnsafeMutablePointer<SCNetworkReachabilityFlags>) -> Bool {
    if let heard = target.flagsHeard {
        flags.pointee = heard
        return SCStatus.result(true)
    }
    switch FlagsQuestion.ask(target.manager, within: .seconds(1)) {
    case .success(let asked):
        target.asked(asked)
        flags.pointee = asked
        return SCStatus.result(true)
    case .failure(let status):
        return SCStatus.result(false, failure: status.rawValue)
    }
}

/// Sets the function called with the target's flags, and the context it gets (`info`, retained with
/// the context's `retain` now and released with its `release` when replaced, cleared or the target
/// goes away); `nil` clears it. No callback starts after a clearing call returns. `false` (and
/// `kSCStatusInvalidArgument`) for a context whose `version` is not 0.
///
/// ```swift
/// var context = SCNetworkReachabilityContext(version: 0, info: Unmanaged.passUnretained(self).toOpaque(),
///                                            retain: nil, release: nil, copyDescription: nil)
/// SCNetworkReachabilitySetCallback(target, { _, flags, info in … }, &context)
/// ```
@discardableResult
public func SCNetworkReachabilitySetCallback(
    _ target: SCNetworkReachability, _ callout: SCNetworkReachabilityCallBack?,
    _ context: UnsafeMutablePointer<SCNetworkReachabilityContext>?
) -> Bool {
    SCStatus.result(target.setCallback(callout, context: context?.pointee))
}

/// Schedules the target's callbacks on `queue` (its monitor runs while scheduled); `nil` unschedules:
/// no callback starts after that returns. `false` (`kSCStatusInvalidArgument`) while the target is
/// scheduled on a run loop.
///
/// ```swift
/// SCNetworkReachabilitySetDispatchQueue(target, DispatchQueue(label: "reachability"))
/// ```
@discardableResult
public func SCNetworkReachabilitySetDispatchQueue(_ target: SCNetworkReachability, _ queue: DispatchQueue?) -> Bool {
    SCStatus.result(target.setDispatchQueue(queue))
}

/// Schedules the target's callbacks on `runLoop` in `runLoopMode`; the loop keeps running while the
/// target is scheduled on it. `false` while the target is scheduled on a dispatch queue, or for a
/// mode that is not a run loop mode's name.
///
/// ```swift
/// SCNetworkReachabilityScheduleWithRunLoop(target, CFRunLoopGetMain(), CFRunLoopMode.commonModes.rawValue)
/// RunLoop.main.run()
/// ```
@discardableResult
public func SCNetworkReachabilityScheduleWithRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop, _ runLoopMode: CFString) -> Bool {
    SCStatus.result(target.schedule(on: runLoop, mode: CFRunLoopMode(rawValue: runLoopMode)))
}

/// Unschedules the target from `runLoop` in `runLoopMode`: no callback starts there after this
/// returns. `false` if it was not scheduled there.
@discardableResult
public func SCNetworkReachabilityUnscheduleFromRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop, _ runLoopMode: CFString) -> Bool {
    SCStatus.result(target.unschedule(from: runLoop, mode: CFRunLoopMode(rawValue: runLoopMode)))
}
