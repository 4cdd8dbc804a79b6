/// The objects a connection exports, and how an incoming call finds its answer.
///
/// Routing is a pure function of the table and the call, so every error a
/// client can provoke (unknown object, interface, method or property, wrong
/// signature, read-only property) is decided here, in one place.
struct ObjectTable {
    /// What to do with one method call.
    enum Resolution {
        /// `cache`: the reply may be kept and sent again while this generation holds.
        case reply([DBusValue], cache: ReplyGeneration.Stamp? = nil)
        /// A property was set: reply, then announce the new value.
        case propertySet(interface: InterfaceName, property: String)
        case failure(DBusError)
        case method(MethodDeclaration)
    }

    private(set) var objects: [ObjectPath: [InterfaceDeclaration]] = [:]

    mutating func add(_ interfaces: [InterfaceDeclaration], at path: ObjectPath) throws(DBusError) {
        guard objects[path] == nil else {
            throw DBusError(name: "org.freedesktop.DBus.Error.ObjectPathInUse", message: "an object is already exported at \(path)")
        }
        objects[path] = interfaces
    }

    @discardableResult
    mutating func remove(at path: ObjectPath) -> Bool {
        objects.removeValue(forKey: path) != nil
    }

    func interface(_ name: InterfaceName, at path: ObjectPath) -> InterfaceDeclaration? {
        objects[path]?.first { $0.name == name }
    }

    /// Names of the nodes directly below `path`, for introspection.
    func children(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for candidate in objects.keys where candidate.rawValue.hasPrefix(prefix) && candidate != path {
            let rest = candidate.rawValue.dropFirst(prefix.count)
            names.insert(String(rest.prefix { $0 != "/" }))
        }
        return names.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
    }

    func resolve(_ call: Message) -> Resolution {
        guard let path = call.path, let member = call.member else {
            return .failure(.unknownMethod("the call has no path or member"))
        }
        guard let interfaces = objects[path] else {
            let children = children(of: path)
            if !children.isEmpty, isIntrospect(call) {
                return .reply([.string(Introspection.document(interfaces: nil, children: children))])
            }
            return .failure(.unknownObject("No such object path '\(path)'"))
        }
        switch call.interface {
        case .introspectable?:
            return introspect(call, path: path, interfaces: interfaces)
        case .properties?:
            return properties(call, path: path, interfaces: interfaces)
        case nil:
            // The interface is optional in a call: look the member up everywhere.
            if isIntrospect(call) { return introspect(call, path: path, interfaces: interfaces) }
            if let method = interfaces.lazy.compactMap({ $0.method(named: member) }).first {
                return checked(call, method)
            }
            if ["Get", "GetAll", "Set"].contains(member.rawValue) {
                return properties(call, path: path, interfaces: interfaces)
            }
            return .failure(.unknownMethod("No such method '\(member)' on object at path \(path)"))
        case let name?:
            guard let interface = interfaces.first(where: { $0.name == name }) else {
                return .failure(.unknownInterface("No such interface '\(name)' on object at path \(path)"))
            }
            guard let method = interface.method(named: member) else {
                return .failure(.unknownMethod("No such method '\(member)' on interface '\(name)'"))
            }
            return checked(call, method)
        }
    }

    /// Why `resolve` will refuse `call` whatever its arguments, decided from its header alone
    /// (path, interface, member, and the body's signature the header gives): unknown object,
    /// interface or method, or arguments of another type than the method takes. nil when the
    /// body is worth reading. Asked before a connection decodes a call's body, so that a
    /// mistyped or misdirected call costs the same whatever its size.
    func refusalBeforeReading(_ call: Message) -> DBusError? {
        guard let path = call.path, let member = call.member else {
            return .unknownMethod("the call has no path or member")
        }
        let signature = call.signature
        func expect(_ expected: Signature) -> DBusError? {
            guard signature != expected else { return nil }
            if expected == .empty, member.rawValue == "Introspect" {
                return .invalidArgs("Introspect takes no arguments, got '(\(signature))'")
            }
            return .invalidArgs("Type of message, '(\(signature))', does not match expected type '(\(expected))'")
        }
        func properties() -> DBusError? {
            switch member.rawValue {
            case "Get": return expect("ss")
            case "GetAll": return expect("s")
            case "Set": return expect("ssv")
            default: return .unknownMethod("No such method '\(member)' on interface 'org.freedesktop.DBus.Properties'")
            }
        }
        guard let interfaces = objects[path] else {
            // A node with children answers Introspect (no arguments); anything else is no object.
            if isIntrospect(call), !children(of: path).isEmpty { return expect(.empty) }
            return .unknownObject("No such object path '\(path)'")
        }
        switch call.interface {
        case .introspectable?:
            guard member.rawValue == "Introspect" else {
                return .unknownMethod("No such method '\(member)' on interface 'org.freedesktop.DBus.Introspectable'")
            }
            return expect(.empty)
        case .properties?:
            return properties()
        case nil:
            if isIntrospect(call) { return expect(.empty) }
            if let method = interfaces.lazy.compactMap({ $0.method(named: member) }).first { return expect(method.inputSignature) }
            if ["Get", "GetAll", "Set"].contains(member.rawValue) { return properties() }
            return .unknownMethod("No such method '\(member)' on object at path \(path)")
        case let name?:
            guard let interface = interfaces.first(where: { $0.name == name }) else {
                return .unknownInterface("No such interface '\(name)' on object at path \(path)")
            }
            guard let method = interface.method(named: member) else {
                return .unknownMethod("No such method '\(member)' on interface '\(name)'")
            }
            return expect(method.inputSignature)
        }
    }

    private func isIntrospect(_ call: Message) -> Bool {
        call.member?.rawValue == "Introspect" && (call.interface == nil || call.interface == .introspectable)
    }

    private func checked(_ call: Message, _ method: MethodDeclaration) -> Resolution {
        let expected = method.inputSignature
        guard call.bodyHasSignature(expected) else {
            return .failure(.invalidArgs("Type of message, '(\(call.signature))', does not match expected type '(\(expected))'"))
        }
        return .method(method)
    }

    private func introspect(_ call: Message, path: ObjectPath, interfaces: [InterfaceDeclaration]) -> Resolution {
        guard call.member?.rawValue == "Introspect" else {
            return .failure(.unknownMethod("No such method '\(call.member?.rawValue ?? "")' on interface 'org.freedesktop.DBus.Introspectable'"))
        }
        guard call.body.isEmpty else {
            return .failure(.invalidArgs("Introspect takes no arguments, got '(\(call.signature))'"))
        }
        return .reply([.string(Introspection.document(interfaces: interfaces, children: children(of: path)))])
    }

    // MARK: org.freedesktop.DBus.Properties

    private func properties(_ call: Message, path: ObjectPath, interfaces: [InterfaceDeclaration]) -> Resolution {
        let member = call.member?.rawValue ?? ""
        let expected: Signature
        switch member {
        case "Get": expected = "ss"
        case "GetAll": expected = "s"
        case "Set": expected = "ssv"
        default:
            return .failure(.unknownMethod("No such method '\(member)' on interface 'org.freedesktop.DBus.Properties'"))
        }
        guard call.signature == expected else {
            return .failure(.invalidArgs("Type of message, '(\(call.signature))', does not match expected type '(\(expected))'"))
        }
        let interfaceName = call.body[0].stringValue ?? ""
        let searched: [InterfaceDeclaration]
        if interfaceName.isEmpty {
            searched = interfaces
        } else if let found = interfaces.first(where: { $0.name.rawValue == interfaceName }) {
            searched = [found]
        } else if ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"].contains(interfaceName) {
            searched = []
        } else {
            return .failure(.unknownInterface("No such interface '\(interfaceName)' on object at path \(path)"))
        }

        if member == "GetAll" {
            let properties = searched.flatMap(\.properties)
            // Stamped before the values are read (see `ReplyGeneration.stamp()`).
            let stamp = Self.sharedGeneration(of: properties)?.stamp()
            let entries = properties.map { DictionaryEntry(.string($0.name), .variant($0.read())) }
            return .reply([.dictionary(key: "s", value: "v", entries)], cache: stamp)
        }
        let propertyName = call.body[1].stringValue ?? ""
        guard let owner = searched.first(where: { $0.property(named: propertyName) != nil }),
              let property = owner.property(named: propertyName) else {
            return .failure(.unknownProperty("No such property '\(propertyName)' on interface '\(interfaceName)'"))
        }
        if member == "Get" {
            let stamp = property.cachedPer?.stamp()
            return .reply([.variant(property.read())], cache: stamp)
        }
        guard let write = property.write else {
            return .failure(.propertyReadOnly("Property '\(propertyName)' is read-only"))
        }
        guard case .variant(let value) = call.body[2], value.signature == property.signature else {
            return .failure(.invalidArgs("Property '\(propertyName)' has type '\(property.signature)', got '\(call.body[2].unwrappingVariant.signatureText)'"))
        }
        do {
            try write(value)
            property.cachedPer?.advance()
            return .propertySet(interface: owner.name, property: propertyName)
        } catch let error as DBusError {
            return .failure(error)
        } catch {
            return .failure(.failed("\(error)"))
        }
    }

    /// The generation `GetAll` of `properties` may be cached per: the one they are all cached
    /// per, if they are (a property read afresh on every call makes the whole reply fresh).
    private static func sharedGeneration(of properties: [PropertyDeclaration]) -> ReplyGeneration? {
        guard let generation = properties.first?.cachedPer,
              properties.allSatisfy({ $0.cachedPer === generation }) else { return nil }
        return generation
    }
}
