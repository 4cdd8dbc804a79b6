import CReachdNetlink

/// One rtnetlink message taken apart: header fields, the fixed family header
/// and its attributes. Parsing checks every length against the buffer, so a
/// truncated or malformed message is dropped, never read past its end.
struct NetlinkMessage {
    let type: UInt16
    let sequence: UInt32
    /// The bytes after the netlink header.
    let payload: ArraySlice<UInt8>

    /// Splits a datagram into messages; stops at the first malformed one.
    static func parse(_ buffer: ArraySlice<UInt8>) -> (messages: [NetlinkMessage], malformed: Bool) {
        var messages: [NetlinkMessage] = []
        var offset = buffer.startIndex
        let headerLength = Int(CNetlink_NLMSG_HDRLEN())
        while buffer.endIndex - offset >= headerLength {
            let length = Int(readUInt32(buffer, at: offset))
            guard length >= headerLength, length <= buffer.endIndex - offset else { return (messages, true) }
            messages.append(NetlinkMessage(
                type: readUInt16(buffer, at: offset + 4),
                sequence: readUInt32(buffer, at: offset + 8),
                payload: buffer[(offset + headerLength)..<(offset + length)]))
            offset += Int(CNetlink_NLMSG_ALIGN(UInt32(length)))
        }
        return (messages, offset < buffer.endIndex)
    }

    /// Attributes after a family header of `headerSize` bytes, by type
    /// (the first of each type wins).
    func attributes(after headerSize: Int) -> [UInt16: ArraySlice<UInt8>] {
        var result: [UInt16: ArraySlice<UInt8>] = [:]
        var offset = payload.startIndex + Int(CNetlink_NLMSG_ALIGN(UInt32(headerSize)))
        while payload.endIndex - offset >= 4 {
            let length = Int(readUInt16(payload, at: offset))
            let type = readUInt16(payload, at: offset + 2) & 0x3fff  // without NLA_F_NESTED/NET_BYTEORDER
            guard length >= 4, length <= payload.endIndex - offset else { break }
            if result[type] == nil { result[type] = payload[(offset + 4)..<(offset + length)] }
            offset += Int(CNetlink_RTA_ALIGN(UInt32(length)))
        }
        return result
    }
}

/// Host byte order reads at arbitrary offsets (netlink uses host order).
func readUInt32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
    var value: UInt32 = 0
    withUnsafeMutableBytes(of: &value) { target in
        for index in 0..<4 { target[index] = bytes[offset + index] }
    }
    return value
}

func readUInt16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
    var value: UInt16 = 0
    withUnsafeMutableBytes(of: &value) { target in
        for index in 0..<2 { target[index] = bytes[offset + index] }
    }
    return value
}

extension Array where Element == UInt8 {
    /// Appends `value`'s bytes in host order.
    mutating func appendRaw<T: BitwiseCopyable>(_ value: T) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    /// Appends one rtattr with `payload`, padded to alignment.
    mutating func appendAttribute(type: UInt16, payload: [UInt8]) {
        appendRaw(UInt16(CNetlink_RTA_LENGTH(UInt32(payload.count))))
        appendRaw(type)
        append(contentsOf: payload)
        let padded = Int(CNetlink_RTA_ALIGN(UInt32(count)))
        append(contentsOf: [UInt8](repeating: 0, count: padded - count))
    }
}
