/// What a connection lets through of the bytes the bus sends it, message by message: a message
/// up to `passLimit` whole, one larger as a `StandIn` once its header has been read, its body
/// read and dropped on the way (contract 7, §2: libdbus reads a message whole before anybody can
/// look at it, into a buffer as large as the message, and then copies it, so 30 MiB cost 60).
///
/// Pure: bytes in, bytes out, whatever the chunks they come in.
struct IncomingFramer {
    /// The largest message passed on whole.
    let passLimit: Int
    /// The largest header held to make a stand-in; a message over both is dropped whole.
    let headerLimit: Int

    private enum Phase {
        /// Reading the next message's first 16 bytes into `held`.
        case fixedPart
        /// Passing on this many more bytes of a message.
        case passing(Int)
        /// Holding an oversized message's header in `held` until it is this long.
        case holdingHeader(MessageFrame)
        /// Dropping this many more bytes, then passing on the stand-in, if any.
        case dropping(Int, StandIn?)
        /// What follows is not D-Bus: passed on as it is, for libdbus to refuse.
        case verbatim
    }

    private var phase = Phase.fixedPart
    private var held: [UInt8] = []

    init(passLimit: Int, headerLimit: Int = 64 << 10) {
        self.passLimit = passLimit
        self.headerLimit = headerLimit
    }

    /// Appends to `output` what of `input` goes on. `admit` is asked about each stand-in before it
    /// is passed on; a stand-in it refuses is dropped with its message.
    mutating func feed(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], admit: (StandIn, MessageFrame) -> Bool) {
        var rest = input[...]
        while true {
            switch phase {
            case .fixedPart:
                guard take(MessageFrame.fixedLength, from: &rest) else { return }
                guard let frame = MessageFrame(held) else {
                    output += held
                    held = []
                    phase = .verbatim
                    continue
                }
                if frame.totalLength <= passLimit {
                    output += held
                    held = []
                    phase = .passing(frame.totalLength - MessageFrame.fixedLength)
                } else if frame.headerLength <= headerLimit {
                    phase = .holdingHeader(frame)
                } else {
                    held = []
                    phase = .dropping(frame.totalLength - MessageFrame.fixedLength, nil)
                }
            case .passing(let remaining):
                let count = min(remaining, rest.count)
                output += rest.prefix(count)
                rest = rest.dropFirst(count)
                guard count == remaining else {
                    phase = .passing(remaining - count)
                    return
                }
                phase = .fixedPart
            case .holdingHeader(let frame):
                guard take(frame.headerLength, from: &rest) else { return }
                let standIn = StandIn(header: held).flatMap { admit($0, frame) ? $0 : nil }
                held = []
                phase = .dropping(frame.bodyLength, standIn)
            case .dropping(let remaining, let standIn):
                let count = min(remaining, rest.count)
                rest = rest.dropFirst(count)
                guard count == remaining else {
                    phase = .dropping(remaining - count, standIn)
                    return
                }
                if let standIn { output += standIn.bytes }
                phase = .fixedPart
            case .verbatim:
                output += rest
                return
            }
        }
    }

    /// Moves bytes from `rest` into `held` until it holds `count`; false while it does not yet.
    private mutating func take(_ count: Int, from rest: inout Slice<UnsafeRawBufferPointer>) -> Bool {
        let wanted = min(count - held.count, rest.count)
        held += rest.prefix(wanted)
        rest = rest.dropFirst(wanted)
        return held.count == count
    }
}
