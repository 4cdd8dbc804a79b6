/// Netlink bytes spelled out by hand for the tests that take the kernel's
/// messages apart, so that no test builds its input with the code it checks.

/// struct rtattr (len, type) and the payload, padded to 4 bytes (rtnetlink(7); host byte order).
func rtattr(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
    let bytes = hostBytes(UInt16(4 + payload.count)) + hostBytes(type) + payload
    return bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
}

/// A value's bytes in host byte order, as the kernel writes its fields.
func hostBytes<T: BitwiseCopyable>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

func uint16(_ value: UInt16) -> [UInt8] { hostBytes(value) }
func uint32(_ value: UInt32) -> [UInt8] { hostBytes(value) }
