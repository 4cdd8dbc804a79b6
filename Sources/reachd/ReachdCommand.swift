import ArgumentParser
import CMemory
import Logging
import ReachabilityService
import ServiceLifecycle

/// `reachd`: network reachability for the session, AFNetworking-style, over D-Bus.
@main
struct ReachdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachd",
        abstract: "Publish network reachability (io.reachd.Reachability1) on the session bus.")

    @Flag(help: "Take the bus name over from a running reachd.")
    var replace = false

    @Option(help: "Watch NetworkManager on this system bus address instead of the usual one (default: $DBUS_SYSTEM_BUS_ADDRESS or the standard socket).")
    var systemBusAddress: String?

    @Option(help: "Publish a change only after it has held this many milliseconds (flap suppression).")
    var settleMs = 0

    @Option(help: "Host monitors one client connection may hold.")
    var maxMonitorsPerClient = 64

    @Option(help: "Host monitors all clients together may hold.")
    var maxMonitors = 4096

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard settleMs >= 0 else { throw ValidationError("--settle-ms must be 0 or more") }
        guard maxMonitorsPerClient > 0, maxMonitors > 0 else { throw ValidationError("monitor limits must be at least 1") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
    }

    func run() async throws {
        // Clients may send strings of up to a few MiB. After the first such
        // buffer is freed glibc raises its mmap threshold and serves the next
        // ones from its heap, which fragments and grows in steps (+10 % over
        // 10,000 bad calls in Scripts/reliability). A fixed threshold keeps
        // large buffers in mappings of their own, returned when freed.
        _ = CMemory_set_mmap_threshold(128 * 1024)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "reachd")
        let daemon = ReachabilityDaemon(
            configuration: ReachabilityDaemonConfiguration(
                replace: replace, systemBusAddress: systemBusAddress, settle: .milliseconds(settleMs),
                maximumMonitorsPerClient: maxMonitorsPerClient, maximumMonitors: maxMonitors),
            logger: logger)
        // The daemon also returns by itself when another instance takes the
        // name over (--replace): a clean end (exit 0), not a failure.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as ReachabilityDaemonError {
            logger.error("\(error)")
            throw ExitCode(error.exitCode)
        }
    }
}

extension ReachabilityDaemonError {
    /// 2: the name is taken (a configuration problem, don't restart);
    /// 1: the bus went away (let systemd restart us).
    var exitCode: Int32 {
        switch self {
        case .nameTaken: 2
        case .sessionBusLost: 1
        }
    }
}
