/// One interface of an exported object, declared once: its methods, properties
/// and signals. Dispatch, argument checking, `Properties` and introspection
/// are all served from this declaration, as sd-bus serves from its vtables.
///
/// ```swift
/// let greeter = InterfaceDeclaration(name: "org.example.Greeter",
///     methods: [MethodDeclaration(name: "Hello", inputs: ["name": "s"], outputs: ["greeting": "s"]) { _, call in
///         [.string("Hello, \(call.body[0].stringValue!)")]
///     }],
///     properties: [PropertyDeclaration(name: "Count", signature: "u", read: { .uint32(1) })],
///     signals: [SignalDeclaration(name: "Greeted", arguments: ["name": "s"])])
/// ```
public struct InterfaceDeclaration: Sendable {
    public var name: InterfaceName
    public var methods: [MethodDeclaration]
    public var properties: [PropertyDeclaration]
    public var signals: [SignalDeclaration]

    public init(
        name: InterfaceName, methods: [MethodDeclaration] = [], properties: [PropertyDeclaration] = [],
        signals: [SignalDeclaration] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    public func method(named member: MemberName) -> MethodDeclaration? {
        methods.first { $0.name == member }
    }

    public func property(named name: String) -> PropertyDeclaration? {
        properties.first { $0.name == name }
    }
}

/// A named argument of a method or signal, for checking and introspection.
public struct ArgumentDeclaration: Sendable, Hashable {
    public var name: String
    public var signature: Signature

    public init(_ name: String, _ signature: Signature) {
        self.name = name
        self.signature = signature
    }
}

/// A method: its signatures and the code that answers it.
public struct MethodDeclaration: Sendable {
    /// How a call is answered.
    public enum Handler: Sendable {
        /// Runs on the connection's thread while the call is dispatched and
        /// answers at once; it may use the connection (export objects, emit signals).
        case immediate(@Sendable (isolated Connection, Message) throws -> [DBusValue])
        /// Runs as a task; the reply is sent when it returns. For work that waits.
        case deferred(@Sendable (Message) async throws -> [DBusValue])
        /// Runs on the connection's thread while the call is dispatched and says how it is
        /// answered: at once (`.now`, or the error it throws), or by the work it returns, run as a
        /// task (`.later`). A call cheap to refuse is refused without a task, so a flood of them
        /// costs what each refusal does, and what was read to decide is handed to the work.
        case atOnceOrLater(@Sendable (isolated Connection, Message) throws -> Answer)

        var waits: Bool {
            switch self {
            case .immediate: false
            case .deferred, .atOnceOrLater: true
            }
        }
    }

    /// What an `atOnceOrLater` handler decided.
    public enum Answer: Sendable {
        case now([DBusValue])
        case later(@Sendable () async throws -> [DBusValue])
    }

    public let name: MemberName
    public let inputs: [ArgumentDeclaration]
    public let outputs: [ArgumentDeclaration]
    public let handler: Handler
    /// The signature a call must carry, and the one its reply must: joined once here
    /// rather than on every call.
    public let inputSignature: Signature
    public let outputSignature: Signature
    /// Non-nil when the reply depends only on values whose every change advances this
    /// generation: it is built once per generation and sent again, copied with each caller's
    /// serial. An error is never kept: the next call runs the handler again.
    public let cachedPer: ReplyGeneration?

    /// Arguments are written as ordered `name: signature` pairs: `["host": "s"]`.
    /// `cachedPer` is for an immediate method without arguments (one reply fits every caller).
    public init(
        name: MemberName, inputs: KeyValuePairs<String, Signature> = [:],
        outputs: KeyValuePairs<String, Signature> = [:], cachedPer: ReplyGeneration? = nil, handler: Handler
    ) {
        self.name = name
        self.inputs = inputs.map(ArgumentDeclaration.init)
        self.outputs = outputs.map(ArgumentDeclaration.init)
        self.handler = handler
        inputSignature = Signature.joining(self.inputs.map(\.signature))
        outputSignature = Signature.joining(self.outputs.map(\.signature))
        if cachedPer != nil, handler.waits {
            preconditionFailure("\(name): only an immediate method's reply can be cached")
        }
        precondition(cachedPer == nil || self.inputs.isEmpty, "\(name): a method with arguments has no one reply to cache")
        self.cachedPer = cachedPer
    }

    /// An immediate method; the common case.
    public init(
        name: MemberName, inputs: KeyValuePairs<String, Signature> = [:],
        outputs: KeyValuePairs<String, Signature> = [:], cachedPer: ReplyGeneration? = nil,
        _ body: @escaping @Sendable (isolated Connection, Message) throws -> [DBusValue]
    ) {
        self.init(name: name, inputs: inputs, outputs: outputs, cachedPer: cachedPer, handler: .immediate(body))
    }
}

/// A property with its type, its access and where its value comes from.
public struct PropertyDeclaration: Sendable {
    /// The `org.freedesktop.DBus.Property.EmitsChangedSignal` annotation.
    public enum ChangeSignal: String, Sendable {
        case emits = "true", invalidates, constant = "const", none = "false"
    }

    public var name: String
    public var signature: Signature
    public var changeSignal: ChangeSignal
    public var read: @Sendable () -> DBusValue
    /// nil for a read-only property: `Set` answers `PropertyReadOnly`.
    public var write: (@Sendable (DBusValue) throws -> Void)?
    /// Non-nil when `read` gives the same value until this generation advances: `Get` of the
    /// property is then answered from a reply built once per generation, and so is `GetAll`
    /// when every property it reads is cached per the same generation. A successful `Set`
    /// advances it.
    public var cachedPer: ReplyGeneration?

    public init(
        name: String, signature: Signature, changeSignal: ChangeSignal = .emits, cachedPer: ReplyGeneration? = nil,
        read: @escaping @Sendable () -> DBusValue, write: (@Sendable (DBusValue) throws -> Void)? = nil
    ) {
        self.name = name
        self.signature = signature
        self.changeSignal = changeSignal
        self.cachedPer = cachedPer
        self.read = read
        self.write = write
    }

    public var isWritable: Bool { write != nil }
}

/// A signal the interface may emit, declared for introspection.
public struct SignalDeclaration: Sendable, Hashable {
    public var name: MemberName
    public var arguments: [ArgumentDeclaration]

    public init(name: MemberName, arguments: KeyValuePairs<String, Signature> = [:]) {
        self.name = name
        self.arguments = arguments.map(ArgumentDeclaration.init)
    }
}
