import Synchronization

/// The version of the values some replies are made of: a method or property declared
/// `cachedPer: generation` has its reply built once per generation and sent again, as a copy
/// carrying each caller's serial, until the generation advances.
///
/// Whoever stores a new value such a reply reads advances the generation right after storing
/// it, on whatever thread stores it, and before announcing it; a reply built from a value is
/// then never sent after that value is replaced. Advancing more often than needed only costs
/// a rebuild.
///
/// ```swift
/// let answers = ReplyGeneration()
/// let status = Mutex<Int32>(0)
/// let getStatus = MethodDeclaration(name: "GetStatus", outputs: ["status": "i"], cachedPer: answers) { _, _ in
///     [.int32(status.withLock { $0 })]
/// }
/// status.withLock { $0 = 2 }
/// answers.advance()   // the next GetStatus builds its reply again
/// ```
public final class ReplyGeneration: Sendable {
    /// A generation as it was read before a reply's values were: the reply may be sent again
    /// while the generation still reads the same.
    struct Stamp {
        let generation: ReplyGeneration
        let value: UInt64

        var isCurrent: Bool { generation.value.load(ordering: .acquiring) == value }
    }

    private let value = Atomic<UInt64>(0)

    public init() {}

    /// Replies built before this are not sent again.
    public func advance() {
        // Releasing: a reader that sees the new generation sees the value stored before it.
        value.wrappingAdd(1, ordering: .releasing)
    }

    /// Read before the values a reply is built from, so that a value replaced while the reply
    /// is being built leaves the reply already out of date.
    func stamp() -> Stamp {
        Stamp(generation: self, value: value.load(ordering: .acquiring))
    }
}
