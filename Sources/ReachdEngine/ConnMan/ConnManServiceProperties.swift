import ReachdDBus
import ReachdCore

/// Reads ConnMan's service properties (`a{sv}` of `GetServices` and `ServicesChanged`, or one
/// `PropertyChanged(s, v)`) into a `ConnManService`. A property reachd does not use, or of a type
/// ConnMan does not send it as, leaves the service as it was.
enum ConnManServiceProperties {
    /// Applies every entry of a service's `a{sv}`.
    static func apply(_ dictionary: DBusValue, to service: inout ConnManService) {
        guard case .dictionary(_, _, let entries) = dictionary.unwrappingVariant else { return }
        for entry in entries {
            guard let name = entry.key.stringValue else { continue }
            apply(name, entry.value.unwrappingVariant, to: &service)
        }
    }

    /// Applies one property.
    static func apply(_ name: String, _ value: DBusValue, to service: inout ConnManService) {
        switch (name, value) {
        case ("Type", .string(let text)): service.type = text
        case ("State", .string(let text)): service.state = text
        case ("Error", .string(let text)): service.error = text
        case ("Roaming", .boolean(let flag)): service.roaming = flag
        case ("Ethernet", _): service.interface = string("Interface", in: value) ?? ""
        case ("IPv4", _):
            service.ipv4Method = string("Method", in: value) ?? ""
            service.ipv4Address = string("Address", in: value) ?? ""
        case ("IPv6", _): service.ipv6Address = string("Address", in: value) ?? ""
        case ("Strength", .byte(let strength)): service.strength = min(strength, 100)
        default: break
        }
    }

    /// `GetServices()`'s and `ServicesChanged`'s `a(oa{sv})`: each service's path and properties.
    static func entries(_ value: DBusValue) -> [(path: String, properties: DBusValue)] {
        guard case .array(_, let items) = value else { return [] }
        return items.compactMap { item in
            guard case .structure(let fields) = item, fields.count == 2, case .objectPath(let path) = fields[0] else { return nil }
            return (path.rawValue, fields[1])
        }
    }

    private static func string(_ key: String, in dictionary: DBusValue) -> String? {
        guard case .dictionary(_, _, let entries) = dictionary.unwrappingVariant else { return nil }
        return entries.first { $0.key.stringValue == key }?.value.unwrappingVariant.stringValue
    }
}
