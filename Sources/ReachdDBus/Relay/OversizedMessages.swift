import Synchronization

/// The messages a connection's relay passed on as stand-ins, by sender and serial: the relay's
/// thread records each before passing it on, the connection's thread takes it when the stand-in
/// arrives and answers for it.
final class OversizedMessages: Sendable {
    struct Key: Hashable {
        let sender: String
        let serial: UInt32
    }

    /// At most this many stand-ins wait; past it, oversized messages are dropped whole. The
    /// connection takes each within one turn of its loop, so only a sender flooding it with
    /// oversized messages, faster than the loop turns, meets the bound.
    static let capacity = 256

    private let waiting = Mutex<[Key: Int]>([:])

    /// Records that `key`'s message of `length` bytes comes as a stand-in; false when full.
    func record(_ key: Key, length: Int) -> Bool {
        waiting.withLock { waiting in
            guard waiting.count < Self.capacity else { return false }
            waiting[key] = length
            return true
        }
    }

    /// What a call or a reply that came as a stand-in is answered with: `what` of `length` bytes.
    static func refusal(_ what: String, length: Int) -> DBusError {
        .limitsExceeded("the \(what) of \(length) bytes is larger than the \(BusRelay.passLimit) bytes this connection reads; it was not read")
    }

    /// True while no stand-in waits: what every message is asked first, without a sender to name.
    var isEmpty: Bool { waiting.withLock { $0.isEmpty } }

    /// The original length of the message from `sender` with `serial`, if it came as a stand-in.
    func take(sender: String, serial: UInt32) -> Int? {
        waiting.withLock { waiting in
            waiting.isEmpty ? nil : waiting.removeValue(forKey: Key(sender: sender, serial: serial))
        }
    }
}
