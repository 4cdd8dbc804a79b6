import ReachdBuildVersion
import CReachdMemory
import ReachdEventLoops
import Glibc
import Logging
import ReachdEngine
import ReachdService
import ReachctlCommands
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
        if ProgramName.isReachctl { ReachctlProgram.main() }
        let standardErrorWasClosed = LogDestination.reopenClosedStandardStreams()
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
            case .checkConfiguration(let parsed):
                exit(checkConfiguration(parsed))
            }
        } catch {
            printError("reachd: \(error)\nUsage: reachd --help")
            exit(64)  // EX_USAGE
        }
        // Read once, here: a bad file stops reachd before it takes the bus name, with every
        // error of it (not only the first), as --check-config would list them.
        let configuration = readConfiguration(commandLine)
        // The log target the command line or the file names (the file's, even where other lines
        // of it are bad): the file's errors go where reachd's log would have gone.
        let logTarget = commandLine.options(over: configuration.options).logTarget
        let destination = Result { () throws(LogDestination.Unusable) in try LogDestination.current(logTarget, standardErrorWasClosed: standardErrorWasClosed) }
        if case .success(.syslog) = destination { SyslogLogHandler.open(system: commandLine.servesSystemBus) }
        guard configuration.errors.isEmpty else {
            // Where the log goes, these go too: they are why reachd did not start.
            let toSyslog = (try? destination.get()) == .syslog
            func refuse(_ line: String) {
                printError("reachd: " + line)
                if toSyslog { SyslogLogHandler.write("error: " + line, priority: LOG_ERR) }
            }
            for error in configuration.errors { refuse("\(error)") }
            if let path = configuration.path {
                let check = commandLine.servesSystemBus ? "'reachd --check-config --system'" : "'reachd --check-config'"
                refuse("\(path) has \(count(configuration.errors.count, "error")); \(check) lists every problem")
            }
            if case .failure(let unusable) = destination { printError("reachd: \(unusable)") }
            RespawnPace.beforeExiting(say: refuse)
            exit(64)  // EX_USAGE, as for a bad command line
        }
        let logDestination: LogDestination
        switch destination {
        case .success(let chosen):
            logDestination = chosen
        case .failure(let unusable):
            printError("reachd: \(unusable)")
            RespawnPace.beforeExiting { printError("reachd: " + $0) }
            exit(64)  // EX_USAGE: the target was asked for by name
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
            let status = await serve(options, configuration: configuration, logDestination: logDestination, loop: loop, signals: signals,
                                     loopIsSwiftsExecutor: loopIsSwiftsExecutor)
            exitStatus.withLock { $0 = status }
            loop.shutdown()
        }
        loop.run()
        exit(exitStatus.withLock { $0 })
    }

    /// The configuration file the command line chooses, read with the XDG directories of reachd's environment.
    private static func readConfiguration(_ commandLine: ReachdCommandLine) -> ReachdConfiguration {
        let environment = ["XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "HOME"].reduce(into: [String: String]()) { environment, name in
            environment[name] = getenv(name).map { String(cString: $0) }
        }
        return ReachdConfiguration.read(commandLine.configuration, environment: environment, system: commandLine.servesSystemBus)
    }

    /// `reachd --check-config`, as `sshd -t`: every problem of the file reachd would read, as
    /// `FILE:LINE: error|warning: …` on standard error, then one line that sums up; 0 when the
    /// file is clean (or there is none), 1 with warnings only (reachd would serve without what
    /// they name), 64 with errors (reachd would not start).
    private static func checkConfiguration(_ commandLine: ReachdCommandLine) -> Int32 {
        if commandLine.servesSystemBus {
            switch ServiceUserCheck.plan(euid: geteuid()) {
            case .checkHere:
                break
            case .checkHereSaying(let why):
                printError("reachd: \(why)")
            case .rerun(let uid, let gid):
                printError("reachd: checking as user \(ServiceUserCheck.user), as the system instance reads its file")
                if let status = ServiceUserCheck.rerun(uid: uid, gid: gid, arguments: Array(CommandLine.arguments.dropFirst())) {
                    return status
                }
                printError("reachd: checked as root instead, who may read more than \(ServiceUserCheck.user) would")
            }
        }
        let configuration = readConfiguration(commandLine)
        for problem in configuration.problems { printError(problem.diagnostic) }
        guard let path = configuration.path else {
            if configuration.searched.isEmpty {
                printError("reachd: no configuration file to check (--no-config)")
            } else {
                let searched = configuration.searched.count == 1 ? "\(configuration.searched[0]) does not exist"
                    : "none of \(configuration.searched.joined(separator: ", ")) exists"
                printError("reachd: no configuration file: \(searched); reachd starts with its defaults")
            }
            return 0
        }
        let errors = configuration.errors.count, warnings = configuration.warnings.count
        switch (errors, warnings) {
        case (0, 0):
            printError("reachd: \(path): no problems")
            return 0
        case (0, _):
            printError("reachd: \(path): \(count(warnings, "warning")); reachd would start, and ignore what \(warnings == 1 ? "it names" : "they name")")
            return 1
        default:
            printError("reachd: \(path): \(count(errors, "error")), \(count(warnings, "warning")); reachd would not start (exit status 64)")
            return 64  // EX_USAGE, as reachd itself would exit
        }
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// Runs the service until a signal, a takeover or a lost bus; returns the exit status.
    private static func serve(
        _ options: ReachdOptions, configuration: ReachdConfiguration, logDestination destination: LogDestination,
        loop: EventLoop, signals: SignalDescriptor, loopIsSwiftsExecutor: Bool
    ) async -> Int32 {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            if destination == .syslog { return SyslogLogHandler(level: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "reachd")
        let bus = options.system ? "the system bus" : "the session bus"
        if let path = configuration.path {
            logger.info("serving \(bus); configuration file: \(path)")
        } else {
            let searched = configuration.searched.isEmpty ? "--no-config" : "looked for " + configuration.searched.joined(separator: ", ")
            if let named = configuration.namedButMissing {
                // Asked for by name: said where an administrator sees it, not only at info.
                logger.notice("serving \(bus) without a configuration file: --config \(named) does not exist (yet); reachd reads it at its next start")
            } else {
                logger.info("serving \(bus); no configuration file (\(searched))")
            }
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
            try await daemon.run(until: shutdown) { StartUpPages.giveBack(logger: logger) }
            return 0
        } catch ReachabilityDaemonError.busLost(.session) {
            // The session ending (a logout, dbus-run-session's command exiting) takes its bus
            // with it: the normal end of a session reachd, not a failure of reachd's. Exit 1 still
            // lets systemd restart it where the bus itself only restarted.
            logger.notice("the session bus went away (the session ended, or its bus stopped); exiting")
            return ReachabilityDaemonError.busLost(.session).exitCode
        } catch let error as ReachabilityDaemonError {
            logger.error("\(error)")
            return error.exitCode
        } catch {
            logger.error("\(error)")
            return 1
        }
    }
}

func printError(_ line: String) {
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
