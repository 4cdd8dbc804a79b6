/// A small message in place of one too large to be read: the same header, without its
/// `SIGNATURE` field and with an empty body, so that the receiver can answer a call (a
/// `LimitsExceeded` error to its sender and serial) or drop a signal, knowing which it was from
/// `OversizedMessages`. libdbus accepts it as it would the original's header.
struct StandIn: Equatable {
    /// The message to pass on in the original's place.
    let bytes: [UInt8]
    /// The `SENDER` field: the bus names every message it routes by its sender's unique name.
    let sender: String
    let serial: UInt32

    /// Nil when `header` (the original's whole header, padded to 8 bytes) holds a field this
    /// cannot step over: the bus only routes the fields the specification names, so such a
    /// message is not from a bus, and is dropped whole.
    init?(header: [UInt8]) {
        guard let frame = MessageFrame(header), header.count == frame.headerLength else { return nil }
        let fieldsEnd = MessageFrame.fixedLength + frame.fieldsLength
        var kept: [UInt8] = []
        var keptEnd = MessageFrame.fixedLength
        var sender = ""
        var offset = MessageFrame.fixedLength
        while offset < fieldsEnd {
            guard let field = Self.field(in: header, at: offset, end: fieldsEnd, bigEndian: frame.bigEndian) else { return nil }
            if field.code != Self.signatureCode {
                // Each field starts on 8 bytes: cutting one out from its start to the next one's
                // leaves every other where its alignment needs it.
                kept.append(contentsOf: header[offset..<field.end])
                keptEnd = MessageFrame.fixedLength + kept.count
                kept.append(contentsOf: repeatElement(0, count: MessageFrame.aligned(keptEnd, to: 8) - keptEnd))
            }
            if field.code == Self.senderCode, let name = field.string { sender = name }
            offset = MessageFrame.aligned(field.end, to: 8)
        }
        // The array ends where its last field does, not at that field's padding.
        let fieldsLength = keptEnd - MessageFrame.fixedLength
        kept.removeLast(kept.count - fieldsLength)
        var bytes = Array(header[0..<4])
        bytes += MessageFrame.bytes(of: 0, bigEndian: frame.bigEndian)
        bytes += header[8..<12]
        bytes += MessageFrame.bytes(of: UInt32(fieldsLength), bigEndian: frame.bigEndian)
        bytes += kept
        bytes += repeatElement(0, count: MessageFrame.aligned(bytes.count, to: 8) - bytes.count)
        self.bytes = bytes
        self.sender = sender
        self.serial = frame.serial
    }

    private static let senderCode: UInt8 = 7
    private static let signatureCode: UInt8 = 8

    private struct Field {
        let code: UInt8
        /// Where its value ends, before any padding.
        let end: Int
        let string: String?
    }

    /// The header field at `offset`: a code, then a variant holding one basic value.
    private static func field(in header: [UInt8], at offset: Int, end: Int, bigEndian: Bool) -> Field? {
        guard offset + 3 <= end else { return nil }
        let code = header[offset]
        let signatureLength = Int(header[offset + 1])
        guard signatureLength == 1, header[offset + 3] == 0 else { return nil }
        var position = offset + 4
        switch header[offset + 2] {
        case UInt8(ascii: "s"), UInt8(ascii: "o"):
            position = MessageFrame.aligned(position, to: 4)
            guard position + 4 <= end else { return nil }
            let length = Int(MessageFrame.word(header[position..<position + 4], at: 0, bigEndian: bigEndian))
            let text = position + 4
            guard length <= end - text - 1 else { return nil }
            return Field(code: code, end: text + length + 1,
                         string: String(decoding: header[text..<text + length], as: UTF8.self))
        case UInt8(ascii: "g"):
            guard position < end else { return nil }
            let length = Int(header[position])
            guard length <= end - position - 2 else { return nil }
            return Field(code: code, end: position + 1 + length + 1, string: nil)
        case UInt8(ascii: "u"):
            position = MessageFrame.aligned(position, to: 4)
            guard position + 4 <= end else { return nil }
            return Field(code: code, end: position + 4, string: nil)
        case UInt8(ascii: "y"):
            guard position + 1 <= end else { return nil }
            return Field(code: code, end: position + 1, string: nil)
        default:
            return nil
        }
    }
}
