import Foundation
import TestSupport

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

    /// Parses the XML that `Introspect` returns and `dbus/*.xml` holds.
    /// Small on purpose: elements and double-quoted attributes, comments and
    /// the DOCTYPE skipped, which is all introspection data uses.
    init(xml: String) throws {
        var text = xml.replacing(/<!--[\s\S]*?-->/, with: "")
        text = text.replacing(/<!DOCTYPE[^>]*>/, with: "")
        text = text.replacing(/<\?xml[^>]*\?>/, with: "")
        var stack: [String] = []
        var interface: String?
        var member: (kind: String, name: String)?
        for tag in text.matches(of: /<(\/?)([A-Za-z]+)((?:\s+[A-Za-z:_.-]+="[^"]*")*)\s*(\/?)>/) {
            let closing = !tag.output.1.isEmpty, element = String(tag.output.2), selfClosing = !tag.output.4.isEmpty
            var attributes: [String: String] = [:]
            for attribute in tag.output.3.matches(of: /([A-Za-z:_.-]+)="([^"]*)"/) {
                attributes[String(attribute.output.1)] = String(attribute.output.2)
            }
            if closing {
                guard stack.last == element else { throw TestFailure("unbalanced </\(element)> in introspection XML") }
                stack.removeLast()
                if element == "interface" { interface = nil }
                if ["method", "signal", "property"].contains(element) { member = nil }
                continue
            }
            switch element {
            case "node" where !stack.isEmpty:
                children.append(attributes["name"] ?? "")
            case "interface":
                interface = attributes["name"]
                if let interface, interfaces[interface] == nil { interfaces[interface] = InterfaceContract() }
            case "method", "signal":
                guard let interface, let name = attributes["name"] else { throw TestFailure("\(element) outside an interface") }
                member = (element, name)
                if element == "method" { interfaces[interface]?.methods[name] = [] } else { interfaces[interface]?.signals[name] = [] }
            case "property":
                guard let interface, let name = attributes["name"] else { throw TestFailure("property outside an interface") }
                member = ("property", name)
                interfaces[interface]?.properties[name] = .init(type: attributes["type"] ?? "", access: attributes["access"] ?? "",
                                                                annotations: [:])
            case "arg":
                guard let interface, let member else { throw TestFailure("arg outside a method or signal") }
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
                if let interface, let member, member.kind == "property", let name = attributes["name"] {
                    interfaces[interface]?.properties[member.name]?.annotations[name] = attributes["value"] ?? ""
                }
            default:
                break
            }
            if !selfClosing { stack.append(element) }
        }
        guard stack.isEmpty else { throw TestFailure("unclosed <\(stack.joined(separator: "> <"))> in introspection XML") }
    }
}

/// `dbus/NAME` in this package, read from the source tree.
func contractFile(_ name: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent("dbus").appendingPathComponent(name), encoding: .utf8)
}
