import ReachdDBus
import Logging
import ReachdCore

/// Watches NetworkManager on the system bus and reports what it says.
///
/// `DaemonWatch` follows its owner and signals, in the order they happened, and does the
/// retrying; this file says what to read. Manager properties arrive in the signals and are
/// applied at once; only a newly referenced object (a new primary connection, its devices)
/// costs a `GetAll`. A `GetAll` answer may be followed by signals that were sent before it:
/// applied in order after it, they end on the same value, because NetworkManager announces
/// every change.
///
/// Errors: an object that answers "no such object" has vanished (it was removed between its
/// mention and our question). Any other failure (a timeout, NetworkManager busy) is transient:
/// nothing is reported until the object has been read, the last report stands meanwhile, and
/// the read is retried with a bounded backoff (docs/design.md, "Errors").
typealias NetworkManagerBackend = DaemonWatch<NetworkManagerModel>

/// NetworkManager's objects as read so far, and what is owed to them.
struct NetworkManagerModel: DaemonModel {
    static let busName = NetworkManagerNames.bus
    static let displayName = "NetworkManager"
    static let rules = [MatchRule(sender: NetworkManagerNames.bus)]

    var cache = NetworkManagerPropertyCache()
    /// The last read failed for a reason other than the object vanishing.
    var failure: DBusError?

    /// What NetworkManager says, nil while its manager has not been read. While its `Startup`
    /// lasts the snapshot says so, and the decision table keeps the kernel's answer over an
    /// intact path (R1).
    var snapshot: NetworkManagerSnapshot? { cache.knowsManager ? cache.snapshot : nil }

    var firstReadNote: String? {
        snapshot?.startup ?? true ? "NetworkManager is still starting up; following the kernel while its path is intact" : nil
    }

    /// Reads the manager and everything the snapshot refers to.
    mutating func synchronize(_ daemon: DaemonProxy) async {
        cache = NetworkManagerPropertyCache()
        failure = nil
        guard await read(NetworkManagerNames.managerPath, NetworkManagerNames.managerInterface, daemon) else { return }
        await readMissing(daemon)
    }

    mutating func retry(_ daemon: DaemonProxy) async { await readMissing(daemon) }

    /// A resume: everything again, in case a change was missed.
    mutating func handle(_ event: Void, _ daemon: DaemonProxy) async { await synchronize(daemon) }

    mutating func apply(_ signal: Message, _ daemon: DaemonProxy) async {
        if cache.knowsManager {
            guard cache.apply(signal) else { return }
            await readMissing(daemon)
        } else {
            // NetworkManager claims its name before it exports its objects (the first GetAll
            // answers UnknownMethod): ask again once it speaks.
            await synchronize(daemon)
        }
    }

    /// Follows references (connection → device → config), one more each round.
    private mutating func readMissing(_ daemon: DaemonProxy) async {
        guard cache.knowsManager || failure == nil else { return await synchronize(daemon) }
        failure = nil
        while true {
            let missing = cache.missingObjects
            if missing.isEmpty { break }
            for object in missing {
                guard await read(object.path, object.interface, daemon) else { return }
            }
        }
        cache.pruneUnreferenced()
    }

    /// Reads one object into the cache (an empty entry when it vanished); false, with `failure`
    /// set, when it could not be read.
    private mutating func read(_ path: ObjectPath, _ interface: InterfaceName, _ daemon: DaemonProxy) async -> Bool {
        switch await daemon.properties(of: path, interface) {
        case .properties(let properties):
            cache.store(properties, at: path, interface: interface)
        case .vanished:
            cache.store([:], at: path, interface: interface)
        case .failed(let error):
            failure = error
            return false
        }
        return true
    }
}
