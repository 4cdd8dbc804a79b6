/// A D-Bus match rule: which signals a subscription wants.
///
/// The same rule is sent to the bus (`AddMatch`) and applied locally, because
/// the bus sends a connection every signal matching any of its rules and each
/// subscription must see only its own.
///
/// ```swift
/// let rule = MatchRule(sender: "org.freedesktop.NetworkManager",
///                      interface: "org.freedesktop.NetworkManager", member: "StateChanged")
/// ```
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    public var sender: BusName?
    public var interface: InterfaceName?
    public var member: MemberName?
    public var path: ObjectPath?
    public var pathNamespace: ObjectPath?
    /// `argN` equality tests on string arguments, by argument index.
    public var arguments: [Int: String]

    public init(
        sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil,
        path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil, arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arguments = arguments
    }

    /// The rule in the bus's text form.
    public var description: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender='\(sender)'") }
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        if let path { parts.append("path='\(path)'") }
        if let pathNamespace { parts.append("path_namespace='\(pathNamespace)'") }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            parts.append("arg\(index)='\(Self.quoted(value))'")
        }
        return parts.joined(separator: ",")
    }

    /// Whether a signal matches locally.
    ///
    /// A well-known sender cannot be checked here: signals carry the owner's
    /// unique name. The bus has already applied it, so only a unique sender
    /// name is compared; subscribers that care about owner changes watch the
    /// name (see `Connection.nameOwnerChanges(of:)`).
    public func matches(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.isUnique || sender == .bus, message.sender != sender { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace, !(message.path?.isInside(pathNamespace) ?? false) { return false }
        for (index, value) in arguments {
            guard index < message.body.count, message.body[index].stringValue == value else { return false }
        }
        return true
    }

    /// Match-rule values are quoted with `'`; a literal quote is written `'\''`.
    /// Done by hand, character by character: `split(separator:)` with a string
    /// separator lives in _StringProcessing, which would link the regex engine
    /// (about 1 MB) into every binary for this one line.
    private static func quoted(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for character in value {
            if character == "'" { result += "'\\''" } else { result.append(character) }
        }
        return result
    }
}
