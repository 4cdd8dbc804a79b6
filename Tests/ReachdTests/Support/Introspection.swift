import Foundation
import ReachdTestSupport

/// One interface of a D-Bus introspection document, as sets that compare
/// regardless of order and layout.
struct InterfaceContract: Equatable, Sendable, CustomStringConvertible {
    struct Argument: Hashable, Sendable, CustomStringConvertible {
        var name: String
        var type: String
        var direction: String
        var description: String { "\(direction) \(type) \(name)" }
    }

    struct Property: Hashable, Sendable, CustomStringConvertible {
        var type: String
        var access: String
        var annotations: [String: String]
        var description: String { "\(type) \(access)\(annotations.isEmpty ? "" : " \(annotations)")" }
    }

    var methods: [String: [Argument]] = [:]
    var properties: [String: Property] = [:]
    var signals: [String: [Argument]] = [:]

    var description: String {
        "methods \(methods.sorted { $0.key < $1.key })\nproperties \(properties.sorted { $0.key < $1.key })\nsignals \(signals)"
    }
}

/// A parsed introspection document: its interfaces and child nodes.
struct IntrospectionDocument: Sendable {
    var interfaces: [String: InterfaceContract] = [:]
    var children: [String] = []

    /// Parses the XML that `Introspect` returns and `dbus/*.xml` holds. The text is read by
    /// `XMLReader`, which refuses what a conforming XML parser refuses (the tools users
    /// run on the installed files, such as gdbus-codegen, use one), then read as introspection data.
    ///
    /// Property annotations in the `org.freedesktop.DBus.` namespace are part of the contract;
    /// others (`org.qtproject.QtDBus.QtTypeName`) are hints to one code generator, which the
    /// files carry and the service need not serve, so they are left out.
    init(xml: String) throws {
        var stack: [String] = []
        var interface: String?
        var member: (kind: String, name: String)?
        for event in try XMLReader.events(in: xml) {
            guard case .start(let element, let attributes) = event else {
                let element = stack.removeLast()
                if element == "interface" { interface = nil }
                if ["method", "signal", "property"].contains(element) { member = nil }
                continue
            }
            let parent = stack.last
            stack.append(element)
            switch element {
            case "node" where parent == nil:
                break
            case "node" where parent == "node":
                children.append(attributes["name"] ?? "")
            case "interface" where parent == "node":
                interface = attributes["name"]
                if let interface, interfaces[interface] == nil { interfaces[interface] = InterfaceContract() }
            case "method" where parent == "interface", "signal" where parent == "interface":
                guard let interface, let name = attributes["name"] else { throw TestFailure("<\(element)> without a name") }
                member = (element, name)
                if element == "method" { interfaces[interface]?.methods[name] = [] } else { interfaces[interface]?.signals[name] = [] }
            case "property" where parent == "interface":
                guard let interface, let name = attributes["name"] else { throw TestFailure("<property> without a name") }
                member = ("property", name)
                interfaces[interface]?.properties[name] = .init(type: attributes["type"] ?? "", access: attributes["access"] ?? "",
                                                                annotations: [:])
            case "arg" where parent == "method" || parent == "signal":
                guard let interface, let member else { throw TestFailure("<arg> outside a method or signal") }
                // Method arguments default to "in", signal arguments are always "out".
                let direction = member.kind == "signal" ? "out" : attributes["direction"] ?? "in"
                let argument = InterfaceContract.Argument(name: attributes["name"] ?? "", type: attributes["type"] ?? "",
                                                          direction: direction)
                if member.kind == "method" {
                    interfaces[interface]?.methods[member.name]?.append(argument)
                } else {
                    interfaces[interface]?.signals[member.name]?.append(argument)
                }
            case "annotation":
                if let interface, let member, member.kind == "property", parent == "property", let name = attributes["name"],
                   name.hasPrefix("org.freedesktop.DBus.") {
                    interfaces[interface]?.properties[member.name]?.annotations[name] = attributes["value"] ?? ""
                }
            default:
                let place = parent.map { "inside <\($0)>" } ?? "as the root element"
                throw TestFailure("<\(element)> \(place) is not introspection data")
            }
        }
    }
}

/// `dbus/NAME` in this package, read from the source tree.
func contractFile(_ name: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent("dbus").appendingPathComponent(name), encoding: .utf8)
}
