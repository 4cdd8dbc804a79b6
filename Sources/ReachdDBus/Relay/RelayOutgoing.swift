import CReachdDBusShims
import Glibc

/// Bytes on their way to one side, with the descriptors that travel with them.
struct RelayOutgoing {
    var bytes: [UInt8] = []
    var sent = 0
    /// Passed with the next bytes written; a stand-in's follow it even though its body did not.
    var fds: [Int32] = []

    var isEmpty: Bool { sent == bytes.count }
    var pending: Int { bytes.count - sent }

    mutating func append(_ more: UnsafeRawBufferPointer, _ moreFds: [Int32]) {
        bytes += more
        fds += moreFds
    }

    /// Writes what the side takes now; false once it cannot take anything any more.
    mutating func write(to side: Int32) -> Bool {
        while sent < bytes.count {
            let passing = fds.prefix(BusRelay.maximumPassed)
            let written = bytes.withUnsafeBytes { all in
                Array(passing).withUnsafeBufferPointer {
                    CShims_send(side, all.baseAddress! + sent, all.count - sent, $0.baseAddress, Int32($0.count))
                }
            }
            if written < 0 {
                if errno == EINTR { continue }
                guard errno == EAGAIN || errno == EWOULDBLOCK else { return false }
                // A long burst is written while more joins it: what went is dropped from the front.
                if sent >= Self.keptCapacity, sent * 2 >= bytes.count {
                    bytes.removeFirst(sent)
                    sent = 0
                }
                return true
            }
            // The receiver has its own copies now.
            for fd in passing { Glibc.close(fd) }
            fds.removeFirst(passing.count)
            sent += written
        }
        // A burst's buffer goes back once written; a small one is kept for the next.
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptCapacity)
        sent = 0
        return true
    }

    static let keptCapacity = 256 << 10

    /// Closes the descriptors that will not be passed on (the relay is ending).
    mutating func discard() {
        for fd in fds { Glibc.close(fd) }
        fds = []
    }
}
