import ReachdDBus
import Logging
import ReachdCore

/// Watches systemd-networkd on the system bus and reports what it says (contract 3, §3).
///
/// `DaemonWatch` follows its owner and signals, the kernel's link events and the retrying, in
/// the order they happened; this file says what to read. The manager's `OnlineState` arrives
/// in its `PropertiesChanged`; what reachd needs of a link (`Type`, `AdministrativeState`,
/// `OnlineState`, `RequiredForOnline`) is only in `DescribeLink`'s JSON, which sends no signal:
/// it is read again when the link object's properties change, and a kernel link event lists
/// the links again (a new link is described, a gone one dropped).
///
/// Errors as NetworkManager's back end: a link that is gone is a fact; any other failure keeps
/// the last report and everything is read again after a bounded backoff.
typealias NetworkdBackend = DaemonWatch<NetworkdModel>

/// What networkd said so far, and whether a read is owed.
struct NetworkdModel: DaemonModel {
    static let busName = NetworkdNames.bus
    static let displayName = "systemd-networkd"
    static let rules = [MatchRule(sender: NetworkdNames.bus, interface: .properties, member: "PropertiesChanged")]

    var read = false
    var onlineState = ""
    var links: [Int: NetworkdLink] = [:]
    var failure: DBusError?

    /// nil until read.
    var snapshot: NetworkdSnapshot? {
        guard read else { return nil }
        return NetworkdSnapshot(onlineState: onlineState, links: links.keys.sorted().compactMap { links[$0] })
    }

    /// Reads the manager's `OnlineState` and describes every link.
    mutating func synchronize(_ daemon: DaemonProxy) async {
        failure = nil
        do {
            // nil: a networkd older than v249 has no OnlineState; it is no source (contract 3, §3.2).
            onlineState = try await daemon.property("OnlineState", of: NetworkdNames.managerPath,
                                                    NetworkdNames.managerInterface)?.stringValue ?? ""
        } catch {
            failure = error
            return
        }
        links = [:]
        await relist(daemon)
        if failure == nil { read = true }
    }

    /// The kernel saw a change: a link may have come or gone.
    mutating func handle(_ event: Void, _ daemon: DaemonProxy) async {
        if failure != nil || !read { await synchronize(daemon) } else { await relist(daemon) }
    }

    mutating func apply(_ signal: Message, _ daemon: DaemonProxy) async {
        guard read, let path = signal.path else { return }
        if path == NetworkdNames.managerPath {
            guard case .dictionary(_, _, let entries)? = signal.body.dropFirst().first else { return }
            for entry in entries where entry.key.stringValue == "OnlineState" {
                onlineState = entry.value.unwrappingVariant.stringValue ?? ""
            }
        } else if let index = NetworkdNames.linkIndex(of: path) {
            await describe(index, daemon)
        }
    }

    /// Lists the links: describes the new ones, drops the gone ones.
    private mutating func relist(_ daemon: DaemonProxy) async {
        let indices: [Int]
        do {
            let reply = try await daemon.call(NetworkdNames.managerPath, NetworkdNames.managerInterface, "ListLinks")
            guard case .array(_, let items)? = reply.first else { return }
            indices = items.compactMap { item in
                guard case .structure(let fields) = item, case .int32(let index)? = fields.first else { return nil }
                return Int(index)
            }
        } catch {
            failure = error
            return
        }
        for index in links.keys where !indices.contains(index) { links[index] = nil }
        for index in indices where links[index] == nil {
            await describe(index, daemon)
            if failure != nil { return }
        }
    }

    /// Reads one link's `DescribeLink` (dropping it when networkd no longer knows it).
    private mutating func describe(_ index: Int, _ daemon: DaemonProxy) async {
        do {
            let reply = try await daemon.call(NetworkdNames.managerPath, NetworkdNames.managerInterface, "DescribeLink",
                                              [.int32(Int32(clamping: index))])
            guard let text = reply.first?.stringValue, let link = NetworkdLink(describeLinkJSON: text) else {
                daemon.logger.debug("DescribeLink \(index): not a link description")
                links[index] = nil
                return
            }
            links[index] = link
        } catch where error.name.rawValue.hasPrefix("org.freedesktop.network1.")
                    || DaemonProxy.vanishedErrors.contains(error.name.rawValue) {
            // "Link not found": the link went between its mention and our question.
            daemon.logger.debug("DescribeLink \(index): gone (\(error))")
            links[index] = nil
        } catch {
            failure = error
        }
    }
}
