import Logging
import ReachdDBus
import ReachdEventLoops

/// Connects to the system bus, and where it is not there yet waits for it: a device's boot runs
/// its first scripts (`reachctl wait`, an app with the engine in process) before the bus daemon
/// starts, and a bus daemon that restarts makes its socket again. Waiting costs nothing while
/// nothing happens (`FileAppearance`: inotify on the socket's folder).
///
/// Only a bus that can come is waited for: an address that names one socket file, with no file
/// there (or a file nobody listens on, left by a bus that died). Anything else (an address of
/// another kind, a socket reachd may not use, inotify refused) is `unavailable`, as before.
struct SystemBusArrival {
    let address: String
    let loop: EventLoop
    let logger: Logger

    enum Outcome {
        case connected(Connection)
        case unavailable(any Error)
        case cancelled
    }

    /// The socket file the address names, when it names exactly one.
    var socket: String? { BusAddress.socketPath(in: address) }

    /// Connects; while the bus is not there, calls `waiting` (once, with the socket's path) and
    /// waits for the socket to be made. `lost`, the file of a bus that went away, is waited on at
    /// once when nobody answers there: it is known to be dead.
    func connect(replacing lost: FileAppearance.Identity? = nil,
                 waiting: (String) async -> Void) async -> Outcome {
        var lost = lost
        var announced = false
        var refusals = 0
        while !Task.isCancelled {
            let error: any Error
            do {
                return .connected(try await Connection.open(address: address, loop: loop))
            } catch let failure {
                error = failure
            }
            guard let socket else { return .unavailable(error) }
            let present = FileAppearance.identity(of: socket)
            if present != nil {
                // A file nobody answers on: a bus daemon between bind() and listen() (a few quick
                // tries), or a dead one's (wait for the file to be made again).
                guard (error as? DBusError)?.name.rawValue == "org.freedesktop.DBus.Error.NoServer" else {
                    return .unavailable(error)
                }
                if refusals < Self.quickRetries, present != lost {
                    refusals += 1
                    guard (try? await Task.sleep(for: .milliseconds(100))) != nil else { return .cancelled }
                    continue
                }
            }
            if !announced {
                announced = true
                await waiting(socket)
            }
            switch await FileAppearance.wait(for: socket, replacing: present, on: loop) {
            case .appeared:
                refusals = 0
                lost = nil
            case .cancelled:
                return .cancelled
            case .cannotWatch(let why):
                logger.warning("cannot wait for the system bus at \(socket): \(why)")
                return .unavailable(error)
            }
        }
        return .cancelled
    }

    private static let quickRetries = 5
}
