/// A D-Bus message as a plain value: header fields and a decoded body.
///
/// Values cross threads freely; the libdbus message is made only on the
/// connection's own thread when the value is sent.
///
/// ```swift
/// let call = Message.methodCall(
///     destination: "io.reachd.Reachability1", path: "/io/reachd/Reachability1",
///     interface: "io.reachd.Reachability1", member: "GetStatus")
/// ```
public struct Message: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    public var kind: Kind
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    public var errorName: ErrorName?
    public var destination: BusName?
    public var sender: BusName?
    /// Given by libdbus when the message is sent; 0 before that.
    public var serial: UInt32 = 0
    public var replySerial: UInt32 = 0
    public var noReplyExpected = false
    public var body: [DBusValue]
    /// The body's signature as the received message's header gives it, while the body is not
    /// read (`MessageReader.read(_:body:)`): what a call is checked against before its
    /// arguments are decoded. nil once `body` holds the values.
    var headerSignature: Signature?

    public init(kind: Kind, body: [DBusValue] = []) {
        self.kind = kind
        self.body = body
    }

    /// The body's signature, one complete type per value.
    public var signature: Signature {
        if let headerSignature { return headerSignature }
        return body.isEmpty ? .empty : Signature(validated: body.map(\.signatureText).joined())
    }

    /// Whether the body's signature is `signature`, without joining a new string: asked
    /// for every call and every reply, so basic values compare one byte each.
    func bodyHasSignature(_ signature: Signature) -> Bool {
        if let headerSignature { return headerSignature == signature }
        var rest = signature.rawValue.utf8[...]
        for value in body {
            if let code = value.basicTypeCode {
                guard rest.first == code else { return false }
                rest = rest.dropFirst()
            } else {
                let text = value.signatureText.utf8
                guard rest.starts(with: text) else { return false }
                rest = rest.dropFirst(text.count)
            }
        }
        return rest.isEmpty
    }

    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        body: [DBusValue] = []
    ) -> Message {
        var message = Message(kind: .methodCall, body: body)
        message.destination = destination
        message.path = path
        message.interface = interface
        message.member = member
        return message
    }

    public static func signal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = []
    ) -> Message {
        var message = Message(kind: .signal, body: body)
        message.path = path
        message.interface = interface
        message.member = member
        return message
    }

    /// The successful reply to this call, addressed to its sender.
    public func methodReturn(body: [DBusValue] = []) -> Message {
        var reply = Message(kind: .methodReturn, body: body)
        reply.destination = sender
        reply.replySerial = serial
        return reply
    }

    /// The error reply to this call, addressed to its sender.
    public func errorReply(_ error: DBusError) -> Message {
        var reply = Message(kind: .error, body: [.string(error.message)])
        reply.errorName = error.name
        reply.destination = sender
        reply.replySerial = serial
        return reply
    }

    /// For an error message: its name and first string argument as a Swift error.
    public var error: DBusError? {
        guard kind == .error, let errorName else { return nil }
        return DBusError(name: errorName, message: body.first?.stringValue ?? "")
    }
}
