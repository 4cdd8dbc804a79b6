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
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            // The receiver has its own copies now.
            for fd in passing { Glibc.close(fd) }
            fds.removeFirst(passing.count)
            sent += written
        }
        bytes.removeAll(keepingCapacity: true)
        sent = 0
        return true
    }

    /// Closes the descriptors that will not be passed on (the relay is ending).
    mutating func discard() {
        for fd in fds { Glibc.close(fd) }
        fds = []
    }
}
