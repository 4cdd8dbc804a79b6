// reachd-fixture-apple-systemconfiguration MODE [--host HOST]: runs the code in AppleCode/ (written
// as Apple-platform apps write it, compiled unmodified) where an app would run, and prints one line
// per thing the tests check. The driver is this file; AppleCode/ is the code under test.
//
//   reachability [--host H]   Reachability-style class (SetCallback + SetDispatchQueue), handlers on
//                             the main queue (dispatchMain): `reachability flags=0x… connection=…`
//   afnetworking [--host H]   AFNetworking-style manager on the main run loop (RunLoop.main.run()):
//                             `afnetworking status=N flags=0x… main=true t=NS` (t: CLOCK_MONOTONIC)
//   getflags [--host H | --address A]  one GetFlags: `getflags ok=true flags=0x… error=N ms=N`, then exits
//   getflags-poll N [--fresh] [--every MS] --host H  N GetFlags on one target (--fresh: a new target
//                             each time), MS apart, as code that polls does:
//                             `poll n=I ok=… flags=0x… error=N ms=N`, then exits
//   address-probes            AddressProbes.swift's targets: `probe offset=O stride=S` (the sockaddr's
//                             place in its struct), `target description=…` for each, then exits
//   stress N [--host H]       N SetCallback set/clear cycles on a scheduled target; then
//                             `stress cycles=… callbacks=… late=… retains=… releases=… alive=…`
//   legacy                    LegacyReachability.swift (SCNetwork.h's names, Darwin's memberwise
//                             sockaddr_in): `legacy connected=true|false guide=true|false`, exits
//   unheld                    UnheldTarget.swift's target, scheduled on the main queue with no reference
//                             kept: `unheld flags=0x… t=NS` per callback, and `unheld-answered flags=0x…`
//                             once a sibling target made just after has its first answer; runs until killed
//   first-flags               CreateWithAddress(0.0.0.0) + GetFlags, prints the flags, exits (bench)
//   first-flags-manager       the same through NetworkReachabilityManager.fetchUpdate() (bench)
//   idle [--on-event-loop]    a 0.0.0.0 target with a callback, scheduled with SetDispatchQueue on a
//                             queue of its own: `flags=0x…` per callback, runs until killed (bench)
//   idle-manager [--on-event-loop]  the same through NetworkReachabilityManager(.defaultRoute)'s
//                             handler on a queue of its own (bench)
//   Without --on-event-loop these run on Swift's own executors, as an app for Apple's platforms
//   runs (there, once a task has slept, libdispatch re-arms a timer every second for the life of
//   the process; Sources/ReachctlCommands/ReachctlProgram.swift); with it, reachd's event loop is
//   Swift's main and default executor on the main thread, as reachctl runs.
import Foundation
// For the bench's idle rows (--on-event-loop).
import ReachdEventLoops
import ReachdKit
import Synchronization
import SystemConfiguration

func emit(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
}

/// CLOCK_MONOTONIC in nanoseconds: the tests compare it with their own reading taken before a change.
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func hex(_ flags: SCNetworkReachabilityFlags) -> String {
    "0x" + String(flags.rawValue, radix: 16)
}

/// UnheldTarget.swift's callback, which has nowhere else to report.
func unheldTargetHeard(_ flags: SCNetworkReachabilityFlags) {
    emit("unheld flags=\(hex(flags)) t=\(now())")
}

var arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.isEmpty ? "" : arguments.removeFirst()
let host: String? = arguments.firstIndex(of: "--host").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
arguments.removeAll { $0 == "--host" || $0 == host }

let address: String? = arguments.firstIndex(of: "--address").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
arguments.removeAll { $0 == "--address" || $0 == address }

/// A target for an IPv4 or IPv6 literal, made from a `sockaddr_in`/`sockaddr_in6` the way
/// Alamofire and Apple's samples make one.
func makeAddressTarget(_ literal: String) -> SCNetworkReachability? {
    var ipv4 = sockaddr_in()
    ipv4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    ipv4.sin_family = sa_family_t(AF_INET)
    if inet_pton(AF_INET, literal, &ipv4.sin_addr) == 1 {
        return withUnsafePointer(to: &ipv4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        }
    }
    var ipv6 = sockaddr_in6()
    ipv6.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
    ipv6.sin6_family = sa_family_t(AF_INET6)
    guard inet_pton(AF_INET6, literal, &ipv6.sin6_addr) == 1 else { return nil }
    return withUnsafePointer(to: &ipv6) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
    }
}

/// The target for `--host`, `--address`, or the zero address as Apple's samples make it.
func makeTarget() -> SCNetworkReachability? {
    if let host { return SCNetworkReachabilityCreateWithName(nil, host) }
    if let address { return makeAddressTarget(address) }
    var zeroAddress = sockaddr()
    zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
    zeroAddress.sa_family = sa_family_t(AF_INET)
    return SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress)
}

/// Prints `WORD flags=0x…` once the scheduled `target` has its first answer: its description says its
/// flags from then on, as Apple's does.
func reportFirstAnswer(of target: SCNetworkReachability, as word: String) {
    Thread.detachNewThread {
        while !"\(target)".contains("flags = ") { usleep(10_000) }
        var flags = SCNetworkReachabilityFlags()
        _ = SCNetworkReachabilityGetFlags(target, &flags)
        emit("\(word) flags=\(hex(flags))")
    }
}

/// What the stress cycles count, from C-convention context functions (which capture nothing).
final class StressCounters: Sendable {
    let retains = Atomic<Int>(0)
    let releases = Atomic<Int>(0)
    let callbacks = Atomic<Int>(0)
    let late = Atomic<Int>(0)
    let deinits = Atomic<Int>(0)
}
let counters = StressCounters()

/// One cycle's context object: cleared once SetCallback(target, nil, nil) has returned.
final class StressContext: Sendable {
    let cleared = Atomic<Bool>(false)
    deinit { counters.deinits.add(1, ordering: .relaxed) }
}

switch mode {
case "reachability":
    let reachability: Reachability
    do {
        reachability = try host.map { try Reachability(hostname: $0) } ?? Reachability()
    } catch {
        emit("error \(error)")
        exit(1)
    }
    let report: (Reachability) -> Void = { reachability in
        // Reachability's handlers run on the main queue (dispatchMain serves it from a worker thread).
        dispatchPrecondition(condition: .onQueue(.main))
        emit("reachability flags=\(hex(reachability.flags ?? [])) connection=\(reachability.connection)"
             + " mainQueue=true t=\(now()) description=\(reachability.targetDescription)")
    }
    reachability.whenReachable = report
    reachability.whenUnreachable = report
    do {
        try reachability.startNotifier()
    } catch {
        emit("error \(error)")
        exit(1)
    }
    withExtendedLifetime(reachability) { dispatchMain() }

case "afnetworking":
    let manager = host.map { AFNetworkReachabilityManager.manager(forDomain: $0) } ?? AFNetworkReachabilityManager.shared
    guard let manager else {
        emit("error no manager")
        exit(1)
    }
    manager.setReachabilityStatusChangeBlock { status in
        emit("afnetworking status=\(status.rawValue) flags=\(hex(manager.flags)) main=\(Thread.isMainThread) t=\(now())")
    }
    manager.startMonitoring()
    RunLoop.main.run()
    emit("error the main run loop returned while monitoring")
    exit(1)

case "getflags":
    guard let target = makeTarget() else {
        emit("error create: \(String(cString: SCErrorString(SCError())))")
        exit(1)
    }
    var flags = SCNetworkReachabilityFlags()
    let started = now()
    let ok = SCNetworkReachabilityGetFlags(target, &flags)
    emit("getflags ok=\(ok) flags=\(hex(flags)) error=\(SCError()) ms=\((now() - started) / 1_000_000)")
    exit(0)

case "getflags-poll":
    let count = Int(arguments.first ?? "") ?? 5
    let fresh = arguments.contains("--fresh")
    let every = arguments.firstIndex(of: "--every").flatMap { $0 + 1 < arguments.count ? UInt32(arguments[$0 + 1]) : nil } ?? 0
    var target = makeTarget()
    for call in 0..<count {
        if call > 0 { usleep(every * 1000) }
        if fresh && call > 0 { target = makeTarget() }
        guard let target else {
            emit("error create: \(String(cString: SCErrorString(SCError())))")
            exit(1)
        }
        var flags = SCNetworkReachabilityFlags()
        let started = now()
        let ok = SCNetworkReachabilityGetFlags(target, &flags)
        emit("poll n=\(call) ok=\(ok) flags=\(hex(flags)) error=\(SCError()) ms=\((now() - started) / 1_000_000)")
    }
    exit(0)

case "address-probes":
    emit("probe offset=\(MemoryLayout<ReachabilityProbe>.offset(of: \.address)!) stride=\(MemoryLayout<ReachabilityProbe>.stride)")
    let zero = AddressReachability.zeroAddressTarget()
    let probes = AddressReachability.targets(for: AddressReachability.probes(for: ["192.0.2.1", "198.51.100.7", "127.0.0.1"], port: 443))
    for target in [zero].compactMap({ $0 }) + probes {
        emit("target description=\(target.description.replacingOccurrences(of: " ", with: "_"))")
    }
    var flags = SCNetworkReachabilityFlags()
    guard let zero, SCNetworkReachabilityGetFlags(zero, &flags) else {
        emit("error \(SCError())")
        exit(1)
    }
    emit("zero flags=\(hex(flags))")
    exit(0)

case "stress":
    let cycles = Int(arguments.first ?? "") ?? 1000
    guard let target = makeTarget() else { exit(1) }
    let callbacks = DispatchQueue(label: "stress callbacks")
    SCNetworkReachabilitySetDispatchQueue(target, callbacks)
    var objects: [Unmanaged<StressContext>] = []
    for cycle in 0..<cycles {
        let object = StressContext()
        var context = SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(object).toOpaque(),
            retain: { info in
                counters.retains.add(1, ordering: .relaxed)
                return UnsafeRawPointer(Unmanaged<StressContext>.fromOpaque(info).retain().toOpaque())
            },
            release: { info in
                counters.releases.add(1, ordering: .relaxed)
                Unmanaged<StressContext>.fromOpaque(info).release()
            },
            copyDescription: nil)
        SCNetworkReachabilitySetCallback(target, { _, _, info in
            guard let info else { return }
            counters.callbacks.add(1, ordering: .relaxed)
            if Unmanaged<StressContext>.fromOpaque(info).takeUnretainedValue().cleared.load(ordering: .sequentiallyConsistent) {
                counters.late.add(1, ordering: .relaxed)
            }
        }, &context)
        if cycle % 2 == 0 { usleep(UInt32.random(in: 0...2000)) }
        SCNetworkReachabilitySetCallback(target, nil, nil)
        object.cleared.store(true, ordering: .sequentiallyConsistent)
        if cycle < 8 { objects.append(Unmanaged.passUnretained(object)) }
    }
    // Anything still queued must find nothing to call.
    callbacks.sync {}
    usleep(200_000)
    callbacks.sync {}
    SCNetworkReachabilitySetDispatchQueue(target, nil)
    emit("stress cycles=\(cycles) callbacks=\(counters.callbacks.load(ordering: .relaxed))"
         + " late=\(counters.late.load(ordering: .relaxed)) retains=\(counters.retains.load(ordering: .relaxed))"
         + " releases=\(counters.releases.load(ordering: .relaxed)) alive=\(cycles - counters.deinits.load(ordering: .relaxed))")
    exit(0)

case "legacy":
    let guide = portingGuideFirstExample()
    emit("legacy connected=\(LegacyReachability.isConnectedToNetwork()) guide=\(guide)")
    exit(0)

case "unheld":
    startUnheldReachability(on: .main)
    // A target of the driver's own, made and scheduled the same way just after: once it has its first
    // answer, so has the unheld one (one engine answers both), and the test may change the network.
    let sibling = makeTarget()!
    SCNetworkReachabilitySetDispatchQueue(sibling, .main)
    reportFirstAnswer(of: sibling, as: "unheld-answered")
    dispatchMain()

case "first-flags":
    var zeroAddress = sockaddr_in()
    zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    zeroAddress.sin_family = sa_family_t(AF_INET)
    let target = withUnsafePointer(to: &zeroAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
    }
    var flags = SCNetworkReachabilityFlags()
    guard let target, SCNetworkReachabilityGetFlags(target, &flags) else {
        emit("error \(SCError())")
        exit(1)
    }
    emit("flags=\(hex(flags))")
    exit(0)

case "first-flags-manager":
    Task {
        do {
            let update = try await NetworkReachabilityManager(.defaultRoute).fetchUpdate()
            emit("flags=0x" + String(update.flags.rawValue, radix: 16))
            exit(0)
        } catch {
            emit("error \(error)")
            exit(1)
        }
    }
    dispatchMain()

case "idle", "idle-manager":
    // Before any task: Swift's executors are chosen once, at the first task.
    var loop: EventLoop?
    if arguments.contains("--on-event-loop") {
        do {
            loop = try EventLoop(name: "idle", thread: .caller)
        } catch {
            emit("error cannot start an event loop: \(error)")
            exit(1)
        }
        _ = EventLoop.installAsMainAndDefaultExecutor(loop!)
    }
    let callbacks = DispatchQueue(label: "reachability callbacks")
    let monitor: AnyObject
    if mode == "idle" {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zeroAddress.sin_family = sa_family_t(AF_INET)
        let target = withUnsafePointer(to: &zeroAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        }
        guard let target, SCNetworkReachabilitySetCallback(target, { _, flags, _ in emit("flags=\(hex(flags))") }, nil),
              SCNetworkReachabilitySetDispatchQueue(target, callbacks) else {
            emit("error \(SCError())")
            exit(1)
        }
        // An address target calls back at changes only (configd's rule): the first flags are read, as
        // AFNetworking's and Alamofire's code reads them after scheduling.
        var flags = SCNetworkReachabilityFlags()
        _ = SCNetworkReachabilityGetFlags(target, &flags)
        emit("flags=\(hex(flags))")
        monitor = target
    } else {
        let manager = NetworkReachabilityManager(.defaultRoute)
        manager.setReachabilityStatusChangeHandler(queue: callbacks) { [weak manager] _ in
            emit("flags=0x" + String(manager?.flags.rawValue ?? 0, radix: 16))
        }
        manager.startMonitoring()
        monitor = manager
    }
    withExtendedLifetime(monitor) {
        if let loop { loop.run() } else { dispatchMain() }
    }

default:
    emit("usage: reachd-fixture-apple-systemconfiguration reachability|afnetworking|getflags|stress N|first-flags|first-flags-manager|idle|idle-manager [--host HOST]")
    exit(64)
}
