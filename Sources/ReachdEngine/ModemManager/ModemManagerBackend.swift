import ReachdDBus
import ReachdCore

/// Watches ModemManager on the system bus for one fact: each modem's `SignalQuality`, the
/// cellular signal of a modem NetworkManager runs (its device's `Udi` names the modem), which
/// grades `LinkQuality` (docs/mapping.md, "Link quality").
///
/// Everything is read once (`GetManagedObjects`) when ModemManager appears and after a resume;
/// after that its signals carry every change: a modem's `PropertiesChanged` (ModemManager polls
/// the modem and says only a change), and `InterfacesAdded`/`InterfacesRemoved` for modems that
/// come and go. While ModemManager is absent nothing runs (`DaemonWatch`).
typealias ModemManagerBackend = DaemonWatch<ModemManagerModel>

/// Each modem's signal as ModemManager said it, and whether a read is owed.
struct ModemManagerModel: DaemonModel {
    static let busName = ModemManagerNames.bus
    static let displayName = "ModemManager"
    static let rules = [
        MatchRule(sender: ModemManagerNames.bus, interface: .properties, member: "PropertiesChanged",
                  pathNamespace: ModemManagerNames.modemsPath, arguments: [0: ModemManagerNames.modemInterface.rawValue]),
        MatchRule(sender: ModemManagerNames.bus, interface: ModemManagerNames.objectManagerInterface,
                  path: ModemManagerNames.rootPath),
    ]

    var read = false
    var signals: [String: UInt8] = [:]
    var failure: DBusError?

    var snapshot: ModemSignals? { read ? ModemSignals(percentByModem: signals) : nil }

    /// A resume: everything again.
    mutating func handle(_ event: Void, _ daemon: DaemonProxy) async { await synchronize(daemon) }

    mutating func synchronize(_ daemon: DaemonProxy) async {
        failure = nil
        do {
            let reply = try await daemon.call(ModemManagerNames.rootPath, ModemManagerNames.objectManagerInterface,
                                              "GetManagedObjects")
            signals = [:]
            guard case .dictionary(_, _, let objects)? = reply.first else { read = true; return }
            for object in objects {
                guard case .objectPath(let path) = object.key else { continue }
                applyInterfaces(object.value, at: path.rawValue)
            }
            read = true
        } catch where DaemonProxy.vanishedErrors.contains(error.name.rawValue) {
            // A ModemManager without its object manager exported yet: no modem to tell of.
            signals = [:]
            read = true
        } catch {
            failure = error
        }
    }

    mutating func apply(_ signal: Message, _ daemon: DaemonProxy) async {
        guard read, let path = signal.path?.rawValue else { return }
        switch signal.member?.rawValue {
        case "PropertiesChanged":
            guard signal.body.count >= 2, signal.body[0].stringValue == ModemManagerNames.modemInterface.rawValue,
                  let quality = Self.signalQuality(in: signal.body[1]) else { return }
            signals[path] = quality
        case "InterfacesAdded":
            guard signal.body.count >= 2, case .objectPath(let added) = signal.body[0] else { return }
            applyInterfaces(signal.body[1], at: added.rawValue)
        case "InterfacesRemoved":
            guard signal.body.count >= 2, case .objectPath(let removed) = signal.body[0],
                  case .array(_, let names) = signal.body[1],
                  names.contains(where: { $0.stringValue == ModemManagerNames.modemInterface.rawValue }) else { return }
            signals[removed.rawValue] = nil
        default:
            break
        }
    }

    /// An object's `a{sa{sv}}` (interfaces and their properties): its modem's signal, if it is one.
    private mutating func applyInterfaces(_ interfaces: DBusValue, at path: String) {
        guard case .dictionary(_, _, let entries) = interfaces.unwrappingVariant,
              let modem = entries.first(where: { $0.key.stringValue == ModemManagerNames.modemInterface.rawValue }),
              let quality = Self.signalQuality(in: modem.value) else { return }
        signals[path] = quality
    }

    /// `SignalQuality` (`(ub)`: percent, and whether it is recent) in an `a{sv}`.
    private static func signalQuality(in properties: DBusValue) -> UInt8? {
        guard case .dictionary(_, _, let entries) = properties.unwrappingVariant,
              let entry = entries.first(where: { $0.key.stringValue == "SignalQuality" }),
              case .structure(let fields) = entry.value.unwrappingVariant, let first = fields.first,
              case .uint32(let percent) = first.unwrappingVariant else { return nil }
        return UInt8(min(percent, 100))
    }
}
