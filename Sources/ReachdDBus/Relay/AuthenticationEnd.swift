/// Where a client's side of the D-Bus authentication ends: at its line `BEGIN` (D-Bus
/// specification, "Authentication Protocol"). Before it, the bus sends text lines; after it, the
/// bus sends messages and nothing else, so from there the bus's bytes can be framed.
struct AuthenticationEnd {
    private static let line = Array("BEGIN\r\n".utf8)
    /// How much of `line` the bytes since the last line's start have matched; nil: not this line.
    private var matched: Int? = 0
    private(set) var reached = false

    /// Looks for the line in the client's next bytes.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes where !reached {
            if let count = matched {
                if byte == Self.line[count] {
                    matched = count + 1
                    reached = count + 1 == Self.line.count
                    continue
                }
                matched = nil
            }
            if byte == UInt8(ascii: "\n") { matched = 0 }
        }
    }
}
