/// The fixed first 16 bytes of every D-Bus message, which say how long the whole message is
/// before any of it is read (D-Bus specification, "Message Format").
struct MessageFrame: Equatable {
    static let fixedLength = 16

    let bigEndian: Bool
    let type: UInt8
    let bodyLength: Int
    let serial: UInt32
    /// The header fields array's length, without the padding after it.
    let fieldsLength: Int

    /// The header up to the body, padded to 8 bytes.
    var headerLength: Int { Self.aligned(Self.fixedLength + fieldsLength, to: 8) }
    var totalLength: Int { headerLength + bodyLength }

    /// Nil when `bytes` (at least 16) do not start a message: then the stream is not D-Bus, and
    /// whoever reads it next says so.
    init?(_ bytes: some RandomAccessCollection<UInt8>) {
        guard bytes.count >= Self.fixedLength else { return nil }
        let start = bytes.startIndex
        switch bytes[start] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: return nil
        }
        type = bytes[bytes.index(start, offsetBy: 1)]
        bodyLength = Int(Self.word(bytes, at: 4, bigEndian: bigEndian))
        serial = Self.word(bytes, at: 8, bigEndian: bigEndian)
        fieldsLength = Int(Self.word(bytes, at: 12, bigEndian: bigEndian))
    }

    static func aligned(_ offset: Int, to alignment: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }

    /// The 32-bit unsigned integer at `offset` from the collection's start.
    static func word(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int, bigEndian: Bool) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[bytes.index(start, offsetBy: bigEndian ? index : 3 - index)])
            value = value << 8 | byte
        }
        return value
    }

    /// `value` as the four bytes a message of this byte order holds.
    static func bytes(of value: UInt32, bigEndian: Bool) -> [UInt8] {
        let little = [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 24)]
        return bigEndian ? little.reversed() : little
    }
}
