import ReachdDBus
import Logging
import ReachdCore

/// Watches systemd-networkd on the system bus and reports what it says (contract 3, §3).
///
/// One stream carries networkd's signals, the bus's `NameOwnerChanged` about it, the kernel's
/// link events and this back end's retry timer, in the order they happened. The manager's
/// `OnlineState` arrives in its `PropertiesChanged`; what reachd needs of a link (`Type`,
/// `AdministrativeState`, `OnlineState`, `RequiredForOnline`) is only in `DescribeLink`'s JSON,
/// which sends no signal: it is read again when the link object's properties change, and a
/// kernel link event lists the links again (a new link is described, a gone one dropped).
///
/// Errors as NetworkManager's back end: a link that is gone is a fact; any other failure keeps
/// the last report and everything is read again after a bounded backoff.
public struct NetworkdBackend: Sendable {
    private let bus: Connection
    private let logger: Logger
    private let callTimeout: Duration

    public init(bus: Connection, logger: Logger, callTimeout: Duration = .seconds(5)) {
        self.bus = bus
        self.logger = logger
        self.callTimeout = callTimeout
    }

    private enum Input: Sendable {
        case signal(Message)
        /// The kernel saw a link, address or route change: list the links again.
        case linksChanged
        /// Time to read again what a failure left unread.
        case retry
    }

    /// Calls `report` with networkd's state (nil while it is not on the bus): first once the
    /// initial state is read (at once, nil, when networkd is not there), then after each change
    /// that alters the snapshot. Returns when the task is cancelled or the bus goes away.
    public func run(linkChanges: AsyncStream<Void> = AsyncStream { $0.finish() },
                    report: @Sendable (NetworkdSnapshot?) async -> Void) async throws {
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(4096))
        let forwarding = Task { for await _ in linkChanges { sink.yield(.linksChanged) } }
        defer { forwarding.cancel() }
        try await bus.deliverSignals(matchingAny: [
            MatchRule(sender: NetworkdNames.bus, interface: .properties, member: "PropertiesChanged"),
            MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged",
                      path: "/org/freedesktop/DBus", arguments: [0: NetworkdNames.bus.rawValue]),
        ], to: sink) { .signal($0) }

        var state = State()
        var backoff = RetryBackoff()
        var retry: Task<Void, Never>?
        defer { retry?.cancel() }
        state.owner = try await bus.nameOwner(of: NetworkdNames.bus)
        if state.owner != nil { await synchronize(&state) }
        var last = state.snapshot
        await report(last)

        func scheduleRetry(_ state: State) {
            guard let failure = state.failure, retry == nil else { return }
            if !backoff.isFailing { logger.warning("reading systemd-networkd failed (\(failure)); keeping the last state and retrying") }
            let delay = backoff.next()
            retry = Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                sink.yield(.retry)
            }
        }
        scheduleRetry(state)

        for await input in inputs {
            switch input {
            case .retry:
                retry = nil
                if state.owner != nil { await synchronize(&state) }
            case .linksChanged:
                guard state.owner != nil else { continue }
                if state.failure != nil { await synchronize(&state) } else { await relist(&state) }
            case .signal(let signal) where signal.sender == .bus:
                guard signal.member?.rawValue == "NameOwnerChanged", signal.body.count == 3 else { continue }
                let owner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
                logger.info("systemd-networkd \(owner == nil ? "left the bus" : "is on the bus as \(owner!)")")
                state = State()
                state.owner = owner
                retry?.cancel()
                retry = nil
                _ = backoff.reset()
                if owner != nil { await synchronize(&state) }
            case .signal(let signal):
                guard let owner = state.owner, signal.sender == owner, let path = signal.path else { continue }
                if path == NetworkdNames.managerPath {
                    guard case .dictionary(_, _, let entries)? = signal.body.dropFirst().first else { continue }
                    for entry in entries where entry.key.stringValue == "OnlineState" {
                        state.onlineState = entry.value.unwrappingVariant.stringValue ?? ""
                    }
                } else if let index = NetworkdNames.linkIndex(of: path) {
                    await describe(index, into: &state)
                }
            }
            scheduleRetry(state)
            guard state.failure == nil else { continue }
            if backoff.reset() { logger.notice("systemd-networkd answers again; its state is current") }
            let snapshot = state.snapshot
            if snapshot != last {
                last = snapshot
                await report(snapshot)
            }
        }
    }

    /// What is known, and whether a read is owed.
    private struct State {
        var owner: BusName?
        var read = false
        var onlineState = ""
        var links: [Int: NetworkdLink] = [:]
        var failure: DBusError?

        /// nil while networkd is absent or not yet read.
        var snapshot: NetworkdSnapshot? {
            guard owner != nil, read else { return nil }
            return NetworkdSnapshot(onlineState: onlineState, links: links.keys.sorted().compactMap { links[$0] })
        }
    }

    /// Reads the manager's `OnlineState` and describes every link.
    private func synchronize(_ state: inout State) async {
        state.failure = nil
        do {
            let reply = try await bus.call(
                destination: NetworkdNames.bus, path: NetworkdNames.managerPath, interface: .properties, member: "Get",
                body: [.string(NetworkdNames.managerInterface.rawValue), .string("OnlineState")], timeout: callTimeout)
            state.onlineState = reply.first?.unwrappingVariant.stringValue ?? ""
        } catch let error as DBusError where Self.vanishedErrors.contains(error.name.rawValue) {
            // A networkd older than v249 has no OnlineState: it is no source (contract 3, §3.2).
            state.onlineState = ""
        } catch {
            state.failure = error as? DBusError ?? DBusError.failed("\(error)")
            return
        }
        state.links = [:]
        await relist(&state)
        if state.failure == nil { state.read = true }
    }

    /// Lists the links: describes the new ones, drops the gone ones.
    private func relist(_ state: inout State) async {
        let indices: [Int]
        do {
            let reply = try await bus.call(destination: NetworkdNames.bus, path: NetworkdNames.managerPath,
                                           interface: NetworkdNames.managerInterface, member: "ListLinks", timeout: callTimeout)
            guard case .array(_, let items)? = reply.first else { return }
            indices = items.compactMap { item in
                guard case .structure(let fields) = item, case .int32(let index)? = fields.first else { return nil }
                return Int(index)
            }
        } catch {
            state.failure = error as? DBusError ?? DBusError.failed("\(error)")
            return
        }
        for index in state.links.keys where !indices.contains(index) { state.links[index] = nil }
        for index in indices where state.links[index] == nil {
            await describe(index, into: &state)
            if state.failure != nil { return }
        }
    }

    /// Reads one link's `DescribeLink` (dropping it when networkd no longer knows it).
    private func describe(_ index: Int, into state: inout State) async {
        do {
            let reply = try await bus.call(destination: NetworkdNames.bus, path: NetworkdNames.managerPath,
                                           interface: NetworkdNames.managerInterface, member: "DescribeLink",
                                           body: [.int32(Int32(clamping: index))], timeout: callTimeout)
            guard let text = reply.first?.stringValue, let link = NetworkdLink(describeLinkJSON: text) else {
                logger.debug("DescribeLink \(index): not a link description")
                state.links[index] = nil
                return
            }
            state.links[index] = link
        } catch let error as DBusError where error.name.rawValue.hasPrefix("org.freedesktop.network1.")
                    || Self.vanishedErrors.contains(error.name.rawValue) {
            // "Link not found": the link went between its mention and our question.
            logger.debug("DescribeLink \(index): gone (\(error))")
            state.links[index] = nil
        } catch {
            state.failure = error as? DBusError ?? DBusError.failed("\(error)")
        }
    }

    private static let vanishedErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownProperty",
        "org.freedesktop.DBus.Error.InvalidArgs",
    ]
}
