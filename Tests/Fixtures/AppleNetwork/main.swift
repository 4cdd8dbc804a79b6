import Foundation
import Network

// reachd-fixture-apple-network: runs the Apple-style clients in AppleCode/ (written as code for
// iOS is, and compiled here unmodified) and prints one line per path each of them sees:
//
//     singleton status=satisfied expensive=0 uses=wiredEthernet interfaces=eth7:wiredEthernet gateways=10.77.1.1 ipv4=1 ipv6=0 dns=0
//
// With no arguments: the NetworkMonitor singleton, a ReachabilityService over NWPathMonitor as a
// PathMonitoring, and a `for await` loop (lines start `singleton`, `protocol`, `async`). With
// `--required TYPE` or `--prohibited TYPE[,TYPE…]`: one filtered monitor (lines start `filtered`), and
// ConnectionTypeObserver over the same filter (`label type=…`).
// With `--cancel-after-first`: a monitor whose handler cancels it on the first path (`first …`,
// `cancelled`; a later call prints `after-cancel …`). With `--for-await-cancel`: PathWatcher, whose
// `for await` loop is cancelled at its first path (`looped …`, `cancelled`, then `loop-ended`; a later
// path prints `after-cancel …`). With `--publisher`: NWPathMonitorPublisher (`publisher …`).
// Runs until killed. This file is the tests' driver, not Apple-style code.

func line(_ client: String, _ path: NWPath) -> String {
    let types: [(String, NWInterface.InterfaceType)] = [
        ("wifi", .wifi), ("cellular", .cellular), ("wiredEthernet", .wiredEthernet), ("loopback", .loopback), ("other", .other),
    ]
    let uses = types.filter { path.usesInterfaceType($0.1) }.map(\.0).joined(separator: ",")
    let interfaces = path.availableInterfaces.map { interface in
        "\(interface.name):\(types.first { $0.1 == interface.type }!.0):\(interface.index)"
    }.joined(separator: ",")
    let gateways = path.gateways.map { endpoint -> String in
        guard case .hostPort(let host, _) = endpoint else { return "?" }
        switch host {
        case .ipv4(let address): return "\(address)"
        case .ipv6(let address): return "\(address)"
        case .name(let name, _): return name
        }
    }.joined(separator: ",")
    let status: String
    switch path.status {
    case .satisfied: status = "satisfied"
    case .unsatisfied: status = "unsatisfied"
    case .requiresConnection: status = "requiresConnection"
    }
    return "\(client) status=\(status) expensive=\(path.isExpensive ? 1 : 0) uses=\(uses) interfaces=\(interfaces)"
        + " gateways=\(gateways) ipv4=\(path.supportsIPv4 ? 1 : 0) ipv6=\(path.supportsIPv6 ? 1 : 0) dns=\(path.supportsDNS ? 1 : 0)"
        + " constrained=\(path.isConstrained ? 1 : 0)"
}

let output = DispatchQueue(label: "output")
func emit(_ text: String) {
    output.async { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
}

func interfaceType(_ name: String) -> NWInterface.InterfaceType {
    switch name {
    case "wifi": return .wifi
    case "cellular": return .cellular
    case "wiredEthernet": return .wiredEthernet
    case "loopback": return .loopback
    case "other": return .other
    default:
        FileHandle.standardError.write(Data("unknown interface type \(name)\n".utf8))
        exit(64)
    }
}

final class ServiceLogger: ReachabilityServiceDelegate {
    func reachabilityService(_ service: ReachabilityService, didUpdate path: NWPath) {
        emit(line("protocol", path))
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
var keep: [AnyObject] = []
if arguments.count == 2, arguments[0] == "--required" || arguments[0] == "--prohibited" {
    let monitor = arguments[0] == "--required"
        ? NWPathMonitor(requiredInterfaceType: interfaceType(arguments[1]))
        : NWPathMonitor(prohibitedInterfaceTypes: arguments[1].split(separator: ",").map { interfaceType(String($0)) })
    monitor.pathUpdateHandler = { path in emit(line("filtered", path)) }
    monitor.start(queue: DispatchQueue(label: "filtered"))
    keep.append(monitor)
    // The same filter under code that labels the connection by `usesInterfaceType`.
    let observer = ConnectionTypeObserver(monitor: arguments[0] == "--required"
        ? NWPathMonitor(requiredInterfaceType: interfaceType(arguments[1]))
        : NWPathMonitor(prohibitedInterfaceTypes: arguments[1].split(separator: ",").map { interfaceType(String($0)) }))
    observer.start { type in emit("label type=\(type.rawValue)") }
    keep.append(observer)
} else if arguments == ["--for-await-cancel"] {
    // A `for await` loop whose monitor is cancelled at its first path: the loop must end.
    let watcher = PathWatcher()
    let seen = NSLock()
    var paths = 0
    watcher.start(onPath: { path in
        seen.lock()
        paths += 1
        let count = paths
        seen.unlock()
        emit(line(count == 1 ? "looped" : "after-cancel", path))
        if count == 1 {
            watcher.stop()
            emit("cancelled")
        }
    }, onEnd: { emit("loop-ended") })
    keep.append(watcher)
} else if arguments == ["--publisher"] {
    // An analytics SDK's publisher, reading iOS 26's members.
    let publisher = NWPathMonitorPublisher()
    publisher.publish { info in
        emit("publisher reachability=\(info.reachability.rawValue)"
             + " interfaces=\((info.availableInterfaces ?? []).map(\.rawValue).joined(separator: ","))"
             + " quality=\(info.linkQuality?.rawValue ?? "nil")"
             + " ultra=\(info.isUltraConstrained.map { $0 ? "1" : "0" } ?? "nil")"
             + " constrained=\(info.isConstrained.map { $0 ? "1" : "0" } ?? "nil")")
    }
    keep.append(publisher)
} else if arguments == ["--cancel-after-first"] {
    // The first path, then cancel() from the handler itself; any later call is a bug.
    let monitor = NWPathMonitor()
    let cancelled = NSLock()
    var isCancelled = false
    monitor.pathUpdateHandler = { [unowned monitor] path in
        cancelled.lock()
        defer { cancelled.unlock() }
        if isCancelled {
            emit(line("after-cancel", path))
            return
        }
        emit(line("first", path))
        monitor.cancel()
        isCancelled = true
        emit("cancelled")
    }
    monitor.start(queue: DispatchQueue(label: "cancelling"))
    keep.append(monitor)
} else if arguments.isEmpty {
    let observer = NotificationCenter.default.addObserver(forName: .connectivityStatusChanged, object: nil, queue: nil) { _ in
        if let path = NetworkMonitor.shared.lastPath { emit(line("singleton", path)) }
    }
    keep.append(observer as AnyObject)
    NetworkMonitor.shared.startMonitoring()

    let logger = ServiceLogger()
    let service = ReachabilityService()
    service.delegate = logger
    service.start()
    keep.append(logger)
    keep.append(service)

    Task {
        await ConnectivityStream.observe { path in emit(line("async", path)) }
    }
} else {
    FileHandle.standardError.write(Data(("usage: reachd-fixture-apple-network [--required TYPE | --prohibited TYPE[,TYPE…]"
        + " | --cancel-after-first | --for-await-cancel | --publisher]\n").utf8))
    exit(64)
}
dispatchMain()
