@testable import ReachdDBus
import Testing

/// What a connection's relay lets through of the bus's bytes (`IncomingFramer`): every message up
/// to the limit exactly as sent, whatever chunks the socket gives; a larger one as a stand-in that
/// libdbus accepts and that names its sender and serial; what is not D-Bus untouched.
@Suite("The bytes a connection reads, message by message")
struct IncomingFramerTests {
    static let sender: BusName = ":1.42"

    static func signal(_ text: String, serial: UInt32) throws -> [UInt8] {
        try WireForm.bytes(of: .signal(path: "/org/example/Big", interface: "org.example.Big", member: "Said", body: [.string(text)]),
                           sender: sender, serial: serial)
    }

    static func call(_ text: String, serial: UInt32) throws -> [UInt8] {
        var call = Message.methodCall(destination: ":1.7", path: "/org/example/Big", interface: "org.example.Big",
                                      member: "Take", body: [.string(text), .uint32(7)])
        call.noReplyExpected = false
        return try WireForm.bytes(of: call, sender: sender, serial: serial)
    }

    /// `stream` through a framer in chunks of `size`; each stand-in admitted is recorded.
    static func framed(_ stream: [UInt8], chunks size: Int, passLimit: Int, headerLimit: Int = 64 << 10,
                       admitting: Bool = true) -> (output: [UInt8], standIns: [(StandIn, Int)]) {
        var framer = IncomingFramer(passLimit: passLimit, headerLimit: headerLimit)
        var output: [UInt8] = []
        var standIns: [(StandIn, Int)] = []
        stream.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(start + size, all.count)
                framer.feed(UnsafeRawBufferPointer(rebasing: all[start..<end]), into: &output) { standIn, frame in
                    if admitting { standIns.append((standIn, frame.totalLength)) }
                    return admitting
                }
                start = end
            }
        }
        return (output, standIns)
    }

    static let chunkSizes = [1, 3, 8, 16, 17, 100, 4096, 1 << 20]

    @Test("messages up to the limit pass exactly as sent, in whatever chunks they arrive", arguments: chunkSizes)
    func messagesWithinTheLimitPassWhole(_ chunk: Int) throws {
        let stream = try Self.signal("one", serial: 1) + Self.call(String(repeating: "x", count: 999), serial: 2)
            + Self.signal("", serial: 3)
        let largest = try Self.call(String(repeating: "x", count: 999), serial: 2).count
        let (output, standIns) = Self.framed(stream, chunks: chunk, passLimit: largest)
        #expect(output == stream)
        #expect(standIns.isEmpty)
    }

    @Test("a message over the limit becomes a stand-in libdbus accepts, naming its kind, sender, serial, path and member, with no body", arguments: chunkSizes)
    func oversizedMessageBecomesAStandIn(_ chunk: Int) throws {
        let before = try Self.signal("before", serial: 1)
        let big = try Self.call(String(repeating: "x", count: 5000), serial: 2)
        let after = try Self.signal("after", serial: 3)
        let (output, standIns) = Self.framed(before + big + after, chunks: chunk, passLimit: 4096)
        let (standIn, length) = try #require(standIns.first)
        #expect(standIns.count == 1)
        #expect(length == big.count)
        #expect(standIn.sender == Self.sender.rawValue && standIn.serial == 2)
        #expect(output == before + standIn.bytes + after)
        let message = try WireForm.message(from: standIn.bytes).get()
        #expect(message.kind == .methodCall && message.sender == Self.sender && message.serial == 2)
        #expect(message.path == "/org/example/Big" && message.interface == "org.example.Big" && message.member == "Take")
        #expect(message.destination == ":1.7" && !message.noReplyExpected)
        #expect(message.body.isEmpty)
    }

    @Test("one byte over the limit is a stand-in; at the limit, the message passes")
    func theLimitIsInclusive() throws {
        let message = try Self.signal(String(repeating: "y", count: 300), serial: 9)
        #expect(Self.framed(message, chunks: 64, passLimit: message.count).output == message)
        let (output, standIns) = Self.framed(message, chunks: 64, passLimit: message.count - 1)
        #expect(standIns.count == 1 && output == standIns.first?.0.bytes)
    }

    @Test("a stand-in the connection has no room for is dropped with its message; the next one passes")
    func refusedStandInDropsTheMessage() throws {
        let big = try Self.signal(String(repeating: "z", count: 5000), serial: 1)
        let after = try Self.signal("after", serial: 2)
        #expect(Self.framed(big + after, chunks: 512, passLimit: 4096, admitting: false).output == after)
    }

    @Test("a message whose header alone is over the header limit is dropped whole")
    func oversizedHeaderDropsTheMessage() throws {
        let big = try Self.signal(String(repeating: "z", count: 5000), serial: 1)
        let after = try Self.signal("after", serial: 2)
        let (output, standIns) = Self.framed(big + after, chunks: 512, passLimit: 4096, headerLimit: 64)
        #expect(output == after && standIns.isEmpty)
    }

    @Test("bytes that do not start a message pass as they are, for libdbus to refuse")
    func notDBusPassesUntouched() throws {
        let stream = Array("GET / HTTP/1.1\r\n\r\n".utf8) + (try Self.signal("x", serial: 1))
        #expect(Self.framed(stream, chunks: 5, passLimit: 64).output == stream)
    }

    @Test("a big-endian message over the limit becomes a big-endian stand-in libdbus accepts", arguments: [false, true])
    func eitherByteOrder(_ bigEndian: Bool) throws {
        let original = HandMarshalledSignal.bytes(bigEndian: bigEndian, sender: ":1.9", serial: 77, text: String(repeating: "q", count: 2000))
        #expect(try WireForm.message(from: original).get().body == [.string(String(repeating: "q", count: 2000))])
        let (output, standIns) = Self.framed(original, chunks: 100, passLimit: 1024)
        let (standIn, _) = try #require(standIns.first)
        #expect(output == standIn.bytes && output.first == original.first)
        let message = try WireForm.message(from: output).get()
        #expect(message.sender == ":1.9" && message.serial == 77 && message.member == "Said" && message.body.isEmpty)
    }

    @Test("the client's authentication ends at its line BEGIN, however the bytes are cut, and only at a line's start")
    func authenticationEndsAtBegin() {
        let conversation = Array("\0AUTH EXTERNAL 30\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n".utf8) + [UInt8(ascii: "l"), 1, 0, 1]
        // Up to the line's last byte, then the rest.
        let lastByte = conversation.count - 5
        func scan(_ end: inout AuthenticationEnd, _ range: Range<Int>, chunks size: Int) {
            conversation.withUnsafeBytes { all in
                for start in stride(from: range.lowerBound, to: range.upperBound, by: size) {
                    end.scan(UnsafeRawBufferPointer(rebasing: all[start..<min(start + size, range.upperBound)]))
                }
            }
        }
        for chunk in [1, 2, 5, 64] {
            var end = AuthenticationEnd()
            scan(&end, 0..<lastByte, chunks: chunk)
            #expect(!end.reached, "chunks of \(chunk)")
            scan(&end, lastByte..<conversation.count, chunks: chunk)
            #expect(end.reached, "chunks of \(chunk)")
        }
        var notAtLineStart = AuthenticationEnd()
        Array("\0AUTH EXTERNAL BEGIN\r\nDATA\r\n".utf8).withUnsafeBytes { notAtLineStart.scan($0) }
        #expect(!notAtLineStart.reached)
    }
}

/// A signal `org.example.Big.Said(s)` marshalled by hand in either byte order (libdbus writes only
/// the machine's): fields PATH, INTERFACE, MEMBER, SENDER, SIGNATURE, then the string.
enum HandMarshalledSignal {
    static func bytes(bigEndian: Bool, sender: String, serial: UInt32, text: String) -> [UInt8] {
        var out: [UInt8] = []
        func pad(_ alignment: Int) { while out.count % alignment != 0 { out.append(0) } }
        func word(_ value: UInt32) { pad(4); out += MessageFrame.bytes(of: value, bigEndian: bigEndian) }
        func string(_ value: String) { word(UInt32(value.utf8.count)); out += Array(value.utf8) + [0] }
        func field(_ code: UInt8, _ type: Character, _ value: String) {
            pad(8)
            out += [code, 1, UInt8(ascii: type.unicodeScalars.first!), 0]
            if type == "g" { out += [UInt8(value.utf8.count)] + Array(value.utf8) + [0] } else { string(value) }
        }
        out += [UInt8(ascii: bigEndian ? "B" : "l"), 4, 0, 1]
        word(0)  // body length, below
        word(serial)
        word(0)  // fields length, below
        field(1, "o", "/org/example/Big")
        field(2, "s", "org.example.Big")
        field(3, "s", "Said")
        field(7, "s", sender)
        field(8, "g", "s")
        let fieldsLength = out.count - 16
        pad(8)
        let bodyStart = out.count
        string(text)
        out.replaceSubrange(4..<8, with: MessageFrame.bytes(of: UInt32(out.count - bodyStart), bigEndian: bigEndian))
        out.replaceSubrange(12..<16, with: MessageFrame.bytes(of: UInt32(fieldsLength), bigEndian: bigEndian))
        return out
    }
}
