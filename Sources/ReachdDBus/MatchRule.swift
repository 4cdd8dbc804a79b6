/// A D-Bus match rule: which signals a subscription wants.
///
/// The same rule is sent to the bus (`AddMatch`) and applied locally, because
/// the bus sends a connection every signal matching any of its rules (and
/// every unicast signal addressed to it) and each subscription must see only
/// its own. A well-known sender is matched locally against that name's
/// current owner, which the connection tracks.
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

    /// The well-known name this rule names as its sender, whose owner the
    /// connection must know to match locally; nil for a unique name, the bus
    /// itself, or no sender.
    public var wellKnownSender: BusName? {
        guard let sender, !sender.isUnique, sender != .bus else { return nil }
        return sender
    }

    /// Whether a signal matches locally, given the current owner of each
    /// well-known name (`owner`, nil when the name has no owner or its owner is
    /// not known yet).
    ///
    /// Signals carry their sender's unique name, so a well-known sender matches
    /// only the signals of that name's current owner: a unicast signal from
    /// anyone else, which the bus delivers whatever the rule says, never
    /// matches (GDBus does the same since its fix for CVE-2024-34397). With no
    /// known owner nothing matches.
    public func matches(_ message: Message, owner: (BusName) -> BusName?) -> Bool {
        guard matchesHeader(message, owner: owner) else { return false }
        for (index, value) in arguments {
            guard index < message.body.count, message.body[index].stringValue == value else { return false }
        }
        return true
    }

    /// `matches` without the argument matches: what can be told from a signal's header alone.
    func matchesHeader(_ message: Message, owner: (BusName) -> BusName?) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender {
            let expected = wellKnownSender.map(owner) ?? sender
            guard let expected, message.sender == expected else { return false }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace, !(message.path?.isInside(pathNamespace) ?? false) { return false }
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
