import ReachdDBus
import Logging
import ReachdCore

/// Watches ConnMan on the system bus and reports what it says (contract 5, §5).
///
/// `DaemonWatch` follows its owner and signals, resumes and the retrying, in the order they
/// happened; this file says what to read. Everything is read once (`GetProperties`,
/// `GetServices`) when ConnMan appears and after a resume; after that its signals carry every
/// change and cost no call: the manager's `PropertyChanged` (`State`, `OfflineMode`),
/// `ServicesChanged` (the whole order, with the properties that changed and the removed
/// services) and each service's `PropertyChanged`.
///
/// ConnMan says one change in several signals at once (a service's `State` through `disconnect`
/// to `idle`, its `IPv4`, then the manager's `State`): `DaemonWatch` applies everything that has
/// arrived before one report, so a change is reported once, not once per signal, and no timer
/// is armed.
///
/// Errors as NetworkManager's back end: a failed read keeps the last report and everything is
/// read again after a bounded backoff.
typealias ConnManBackend = DaemonWatch<ConnManModel>

/// What ConnMan said so far, and whether a read is owed.
struct ConnManModel: DaemonModel {
    static let busName = ConnManNames.bus
    static let displayName = "ConnMan"
    static let rules = [
        MatchRule(sender: ConnManNames.bus, interface: ConnManNames.managerInterface),
        MatchRule(sender: ConnManNames.bus, interface: ConnManNames.serviceInterface, member: "PropertyChanged"),
    ]
    /// Where NetworkManager is absent, ConnMan coming or going is reachd changing its source.
    static let ownerChangeLevel = Logger.Level.notice
    static let absence = "left the bus: following the kernel's routes"

    var read = false
    var managerState = ""
    var offlineMode = false
    /// The services' paths in ConnMan's order, and each one's properties.
    var order: [String] = []
    var services: [String: ConnManService] = [:]
    var failure: DBusError?

    /// nil until read.
    var snapshot: ConnManSnapshot? {
        guard read else { return nil }
        return ConnManSnapshot(state: managerState, offlineMode: offlineMode, services: order.compactMap { services[$0] })
    }

    /// A resume: everything again.
    mutating func handle(_ event: Void, _ daemon: DaemonProxy) async { await synchronize(daemon) }

    mutating func apply(_ signal: Message, _ daemon: DaemonProxy) async {
        guard read else { return }
        apply(signal)
    }

    mutating func applyManager(_ name: String, _ value: DBusValue) {
        switch (name, value.unwrappingVariant) {
        case ("State", .string(let text)): managerState = text
        case ("OfflineMode", .boolean(let flag)): offlineMode = flag
        default: break
        }
    }

    /// Replaces the order with `entries` (ConnMan lists every service, in order, each time),
    /// applying the properties each entry carries.
    mutating func applyServices(_ entries: [(path: String, properties: DBusValue)], removed: [String]) {
        for path in removed { services[path] = nil }
        order = entries.map(\.path)
        for entry in entries {
            var service = services[entry.path] ?? ConnManService(path: entry.path)
            ConnManServiceProperties.apply(entry.properties, to: &service)
            services[entry.path] = service
        }
        let listed = Set(order)
        for path in services.keys where !listed.contains(path) { services[path] = nil }
    }

    mutating func apply(_ signal: Message) {
        guard let member = signal.member?.rawValue, let path = signal.path else { return }
        switch (signal.interface, member) {
        case (ConnManNames.managerInterface?, "PropertyChanged") where path == ConnManNames.managerPath:
            guard signal.body.count == 2, let name = signal.body[0].stringValue else { return }
            applyManager(name, signal.body[1])
        case (ConnManNames.managerInterface?, "ServicesChanged") where path == ConnManNames.managerPath:
            guard signal.body.count == 2, case .array(_, let removed) = signal.body[1] else { return }
            applyServices(ConnManServiceProperties.entries(signal.body[0]), removed: removed.compactMap {
                if case .objectPath(let path) = $0 { path.rawValue } else { nil }
            })
        case (ConnManNames.serviceInterface?, "PropertyChanged"):
            guard signal.body.count == 2, let name = signal.body[0].stringValue,
                  var service = services[path.rawValue] else { return }
            ConnManServiceProperties.apply(name, signal.body[1].unwrappingVariant, to: &service)
            services[path.rawValue] = service
        default:
            break
        }
    }

    /// Reads the manager's properties and every service.
    mutating func synchronize(_ daemon: DaemonProxy) async {
        failure = nil
        do {
            let properties = try await daemon.call(ConnManNames.managerPath, ConnManNames.managerInterface, "GetProperties")
            let list = try await daemon.call(ConnManNames.managerPath, ConnManNames.managerInterface, "GetServices")
            guard case .dictionary(_, _, let entries)? = properties.first, let list = list.first else {
                failure = DBusError.failed("ConnMan's GetProperties or GetServices answered an unexpected shape")
                return
            }
            managerState = ""
            offlineMode = false
            for entry in entries {
                if let name = entry.key.stringValue { applyManager(name, entry.value) }
            }
            services = [:]
            applyServices(ConnManServiceProperties.entries(list), removed: [])
            read = true
        } catch {
            // ConnMan claims its name before it exports its objects: a first read may fail, and is retried.
            failure = error
        }
    }
}
