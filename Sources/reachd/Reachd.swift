import BuildVersion
import CMemory
import EventLoops
import Glibc
import Logging
import ReachabilityEngine
import ReachabilityService
import Synchronization

/// `reachd`: network reachability for the session, AFNetworking-style, over D-Bus.
///
/// The whole service runs on one thread: the main thread's event loop is
/// Swift's main and default executor, and both bus connections, the netlink
/// socket, the shutdown signals and every task run on it. Only host-name
/// lookups (getaddrinfo blocks) use threads of their own.
@main
enum Reachd {
    static func main() {
        let commandLine: ReachdCommandLine
        do {
            switch try ReachdOptions.parse(Array(CommandLine.arguments.dropFirst())) {
            case .help:
                print(ReachdOptions.help, terminator: "")
                exit(0)
            case .version:
                print("reachd \(reachdVersion)")
                exit(0)
            case .run(let parsed):
                commandLine = parsed
            }
        } catch {
            printError("reachd: \(error)\nUsage: reachd --help")
            exit(64)  // EX_USAGE
        }
        // Read once, here: a bad file stops reachd before it takes the bus name.
        let configuration: ReachdConfiguration
        do {
            let environment = ["XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "HOME"].reduce(into: [String: String]()) { environment, name in
                environment[name] = getenv(name).map { String(cString: $0) }
            }
            configuration = try ReachdConfiguration.load(commandLine.configuration, environment: environment,
                                                         system: commandLine.servesSystemBus)
        } catch {
            printError("reachd: \(error)")
            exit(64)  // EX_USAGE, as for a bad command line
        }
        let options = commandLine.options(over: configuration.options)

        // Clients may send strings of up to a few MiB. After the first such
        // buffer is freed glibc raises its mmap threshold and serves the next
        // ones from its heap, which fragments and grows in steps (+10 % over
        // 10,000 bad calls in Scripts/reliability). A fixed threshold keeps
        // large buffers in mappings of their own, returned when freed.
        _ = CMemory_set_mmap_threshold(128 * 1024)

        let loop: EventLoop
        let signals: SignalDescriptor
        do {
            signals = try SignalDescriptor(blocking: [SIGTERM, SIGINT])  // before any other thread exists
            loop = try EventLoop(name: "reachd", thread: .caller)
        } catch {
            printError("reachd: \(error)")
            exit(1)
        }
        let loopIsSwiftsExecutor = EventLoop.installAsMainAndDefaultExecutor(loop)

        let exitStatus = Mutex<Int32>(0)
        // The preference keeps the service's own code on the loop even in a
        // build where the loop is not Swift's executor (the tasks it starts
        // with Task {} then run on Swift's global pool instead).
        Task(executorPreference: loop) {
            let status = await serve(options, configuration: configuration, loop: loop, signals: signals,
                                     loopIsSwiftsExecutor: loopIsSwiftsExecutor)
            exitStatus.withLock { $0 = status }
            loop.shutdown()
        }
        loop.run()
        exit(exitStatus.withLock { $0 })
    }

    /// Runs the service until a signal, a takeover or a lost bus; returns the exit status.
    private static func serve(
        _ options: ReachdOptions, configuration: ReachdConfiguration, loop: EventLoop, signals: SignalDescriptor,
        loopIsSwiftsExecutor: Bool
    ) async -> Int32 {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "reachd")
        let bus = options.system ? "the system bus" : "the session bus"
        if let path = configuration.path {
            logger.info("serving \(bus); configuration file: \(path)")
        } else {
            logger.info("serving \(bus); no configuration file (\(configuration.searched))")
        }
        for warning in configuration.warnings {
            logger.warning("\(warning)")
        }
        logger.debug("options: \(ReachdSetting.describe(options))")
        if !loopIsSwiftsExecutor {
            logger.warning("this build cannot make the event loop Swift's executor: tasks hop to Swift's global pool, whose threads wake an idle reachd")
        }
        // reachd's own connectivity check: only with a URI (the options checked it already).
        var connectivityCheck: ConnectivityCheckConfiguration?
        if let uri = options.connectivityURI {
            do {
                connectivityCheck = try ConnectivityCheckConfiguration(
                    uri: uri, response: options.connectivityResponse,
                    interval: .seconds(options.connectivityIntervalSeconds), timeout: .seconds(options.connectivityTimeoutSeconds),
                    userAgent: "reachd/\(reachdVersion)")
            } catch {
                logger.error("\(error)")
                return 64  // EX_USAGE
            }
        }
        let daemon = ReachabilityDaemon(
            configuration: ReachabilityDaemonConfiguration(
                bus: options.system ? .system : .session, replace: options.replace,
                engine: EngineConfiguration(
                    systemBusAddress: options.systemBusAddress, settle: .milliseconds(options.settleMilliseconds),
                    maximumMonitorsPerClient: options.maximumMonitorsPerClient, maximumMonitors: options.maximumMonitors,
                    probeIPv4: options.probeIPv4, probeIPv6: options.probeIPv6, allRouteEvents: options.allRouteEvents,
                    overrides: options.overrides, overrideDelay: .milliseconds(options.overrideDelayMilliseconds),
                    connectivityCheck: connectivityCheck)),
            logger: logger, loop: loop)
        let shutdown = ShutdownRequest()
        do {
            try signals.watch(on: loop) { signal in
                logger.info("received signal \(signal); shutting down")
                shutdown.request()
            }
        } catch {
            // SIGTERM is blocked: without the watch reachd could not be stopped cleanly.
            logger.error("cannot watch for SIGTERM and SIGINT: \(error)")
            return 1
        }
        // The daemon also returns by itself when another instance takes the
        // name over (--replace): a clean end (exit 0), not a failure.
        do {
            try await daemon.run(until: shutdown)
            return 0
        } catch let error as ReachabilityDaemonError {
            logger.error("\(error)")
            return error.exitCode
        } catch {
            logger.error("\(error)")
            return 1
        }
    }
}

private func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

extension ReachabilityDaemonError {
    /// 2: the name is taken (a configuration problem, don't restart);
    /// 1: the bus went away (let systemd restart us).
    var exitCode: Int32 {
        switch self {
        case .nameTaken: 2
        case .busLost: 1
        }
    }
}
