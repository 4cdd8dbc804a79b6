internal import ReachdDBus
internal import ReachdContract

extension NetworkReachabilityManager {
    /// Asks once, without monitoring: the nearest provider that answers for this process's network
    /// namespace (`service`): `GetAll` on reachd's main object (starting reachd by D-Bus activation
    /// if needed), or for a host a monitor made, read and released at once; or the engine in this
    /// process. `update.service` says which answered.
    ///
    /// ```swift
    /// let now = try await NetworkReachabilityManager.shared.fetchUpdate()
    /// print(now.status, now.flags, now.service ?? .inProcess)
    /// ```
    public func fetchUpdate() async throws(ReachabilityError) -> ReachabilityUpdate {
        let target = target
        var (update, passedOver) = try await OneShot.ask(service) { bus, owner, provider in
            var update = ReachabilityUpdate.unknown
            update.service = provider
            guard let request = target.monitorRequest else {
                let reply = try await bus.call(
                    destination: owner, path: ReachdContract.objectPath, interface: .properties,
                    member: "GetAll", body: [.string(ReachdContract.interface.rawValue)])
                update.apply(ReachabilityUpdate.properties(in: reply.first ?? .structure([])))
                return update
            }
            let made = try await bus.call(
                .methodCall(destination: owner, path: ReachdContract.objectPath,
                            interface: ReachdContract.interface, member: request.method, body: [.string(request.host)]),
                timeout: .seconds(25))
            guard case .objectPath(let path)? = made.body.first else {
                throw DBusError.failed("\(request.method) answered \(made.body) instead of an object path")
            }
            do {
                let reply = try await bus.call(
                    destination: owner, path: path, interface: .properties, member: "GetAll",
                    body: [.string(ReachdContract.monitorInterface.rawValue)])
                update.apply(ReachabilityUpdate.properties(in: reply.first ?? .structure([])))
            } catch {
                _ = try? await bus.call(destination: owner, path: path, interface: ReachdContract.monitorInterface, member: ReachdContract.release)
                throw error
            }
            _ = try await bus.call(destination: owner, path: path, interface: ReachdContract.monitorInterface, member: ReachdContract.release)
            return update
        } inProcess: {
            let engine = InProcessEngine.shared
            guard target != .defaultRoute else { return ReachabilityUpdate(inProcess: try await engine.value()) }
            let watch = try await engine.watch(target)
            await engine.release(watch)
            return ReachabilityUpdate(inProcess: watch.first)
        }
        update.passedOver = passedOver
        return update
    }

    /// One answer for a DNS name or an address literal (`CheckHost`); no monitor is kept.
    ///
    /// ```swift
    /// let (status, flags) = try await NetworkReachabilityManager.checkHost("example.org")
    /// ```
    public static func checkHost(
        _ host: String, sessionBusAddress: String? = nil
    ) async throws(ReachabilityError) -> (status: NetworkReachabilityStatus, flags: ReachabilityFlags) {
        let answer = try await checkHost(host, service: sessionBusAddress.map { .session(address: $0) } ?? .automatic)
        return (answer.status, answer.flags)
    }

    /// One answer for a DNS name or an address literal, from `service`, and who gave it.
    ///
    /// ```swift
    /// let answer = try await NetworkReachabilityManager.checkHost("example.org", service: .inProcess)
    /// print(answer.status, answer.service)
    /// ```
    public static func checkHost(
        _ host: String, service: ServiceChoice
    ) async throws(ReachabilityError) -> (status: NetworkReachabilityStatus, flags: ReachabilityFlags, service: ReachabilityProvider) {
        let answer = try await checkHostUpdate(host, service: service)
        return (answer.status, answer.flags, answer.service ?? .inProcess)
    }

    /// `checkHost`'s answer as an update: `status`, `flags`, `service` (who answered) and
    /// `passedOver` (the nearer providers that were set up and could not answer).
    ///
    /// ```swift
    /// let answer = try await NetworkReachabilityManager.checkHostUpdate("example.org")
    /// print(answer.status, answer.service ?? .inProcess, answer.passedOver.count)
    /// ```
    public static func checkHostUpdate(
        _ host: String, service: ServiceChoice = .automatic
    ) async throws(ReachabilityError) -> ReachabilityUpdate {
        let ((status, flags, provider), passedOver) = try await OneShot.ask(service) { bus, owner, provider in
            let reply = try await bus.call(
                destination: owner, path: ReachdContract.objectPath, interface: ReachdContract.interface,
                member: ReachdContract.checkHost, body: [.string(host)])
            guard reply.count == 2, case .int32(let status) = reply[0], case .uint32(let flags) = reply[1] else {
                throw DBusError.failed("CheckHost answered \(reply) instead of (i, u)")
            }
            return (NetworkReachabilityStatus(rawValue: status) ?? .unknown, ReachabilityFlags(rawValue: flags), provider)
        } inProcess: {
            let report = try await InProcessEngine.shared.checkHost(host)
            return (report.status, report.flags, ReachabilityProvider.inProcess)
        }
        var update = ReachabilityUpdate(status: status, flags: flags)
        update.service = provider
        update.passedOver = passedOver
        return update
    }
}

/// A question asked once, of the nearest provider that answers for this process's network
/// namespace (contract 4, §2.1), or of the one chosen.
enum OneShot {
    static func ask<T: Sendable>(
        _ choice: ServiceChoice,
        bus question: (Connection, BusName, ReachabilityProvider) async throws -> T,
        inProcess: () async throws -> T
    ) async throws(ReachabilityError) -> (answer: T, passedOver: [ReachabilityError]) {
        let candidates = try choice.resolved().candidates
        var nearest: ReachabilityError?
        // Nearer providers set up to answer that could not (ReachabilityUpdate.passedOver).
        var passedOver: [ReachabilityError] = []
        func pass(_ error: ReachabilityError) {
            nearest = nearest ?? error
            if error.isFailedSetUp { passedOver.append(error) }
        }
        for candidate in candidates {
            switch candidate {
            case .inProcess:
                do {
                    return (try await inProcess(), passedOver)
                } catch {
                    throw ReachabilityError(error).of(.inProcess)
                }
            case .bus(let provider, _):
                let bus: Connection
                do {
                    bus = try await candidate.connect()
                } catch {
                    pass(error)
                    continue
                }
                defer { Task { await bus.close() } }
                let owner: BusName
                do {
                    owner = try await Self.owner(on: bus)
                    if let mismatch = try await NamespaceCheck.foreignNamespace(of: owner, on: bus, timeout: .seconds(25)) {
                        throw NamespaceCheck.error(mismatch, provider: provider)
                    }
                } catch {
                    let error = ReachabilityError(error).of(provider)
                    // A sandbox without network is refused by every reachd, and gets no answer from
                    // anyone else either: the refusal is the answer.
                    if error.name == ReachabilityError.notAllowed { throw error }
                    // This provider cannot answer; the next may.
                    pass(error)
                    continue
                }
                do {
                    return (try await question(bus, owner, provider), passedOver)
                } catch {
                    // reachd answered: its refusal (an invalid host, not allowed) is the answer.
                    throw ReachabilityError(error).of(provider)
                }
            }
        }
        throw nearest ?? ReachabilityError(name: ReachabilityError.serviceUnknown, message: "no provider to ask")
    }

    /// reachd's unique name on `bus`, starting it by D-Bus activation if it is not there.
    private static func owner(on bus: Connection) async throws -> BusName {
        if let owner = try await bus.nameOwner(of: ReachdContract.busName) { return owner }
        _ = try await bus.call(destination: .bus, path: ServiceSubscriptions.busPath, interface: .bus, member: "StartServiceByName",
                               body: [.string(ReachdContract.busName.rawValue), .uint32(0)], timeout: .seconds(25))
        guard let owner = try await bus.nameOwner(of: ReachdContract.busName) else {
            throw DBusError(name: ErrorName(rawValue: ReachabilityError.nameHasNoOwner)!, message: "reachd was started but left at once")
        }
        return owner
    }
}
