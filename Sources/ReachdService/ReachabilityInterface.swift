import ReachdDBus
import ReachdContract
import ReachdCore
import ReachdEngine

/// The declaration of `io.reachd.Reachability1` on `/io/reachd/Reachability1`:
/// interface version 4 (dbus/io.reachd.Reachability1.xml is the source of truth,
/// and a test holds this declaration to it). Its reachability properties come
/// from the contract's table, `PublishedReachability.contractProperties`.
enum ReachabilityInterface {
    static func declaration(
        publisher: ReachabilityPublisher, monitors: HostMonitorRegistry, checker: ConnectivityChecker,
        callers: CallerPolicy, networkNamespace: NetworkNamespace?
    ) -> InterfaceDeclaration {
        let current = { @Sendable in publisher.current }
        // Every answer below that depends only on the published value and the monitor count is
        // built once per change of either and sent again to each caller.
        let replies = publisher.replies
        // 0 where /proc is not mounted: no namespace a client has.
        let namespace = DBusValue.uint64(networkNamespace?.rawValue ?? 0)
        return InterfaceDeclaration(
            name: ReachdContract.interface,
            methods: [
                MethodDeclaration(name: ReachdContract.getStatus, outputs: ["status": "i", "flags": "u"],
                                  cachedPer: replies) { _, _ in
                    let (status, flags) = publisher.statusAndFlags
                    return [.int32(status.rawValue), .uint32(flags.rawValue)]
                },
                // Every property in one round trip, keyed as GetAll keys them.
                MethodDeclaration(name: ReachdContract.getPath, outputs: ["path": "a{sv}"], cachedPer: replies) { _, _ in
                    let value = current()
                    let entries = PublishedReachability.contractProperties.map {
                        DictionaryEntry(.string($0.name), .variant($0.read(value)))
                    } + [DictionaryEntry(.string(ReachdContract.monitorCount), .variant(.uint32(UInt32(monitors.count)))),
                         DictionaryEntry(.string(ReachdContract.networkNamespace), .variant(namespace))]
                    return [.dictionary(key: "s", value: "v", entries)]
                },
                // Validation answers at once; the evaluation (which may resolve a
                // name) runs as a task so a slow resolver holds up no one else.
                MethodDeclaration(name: ReachdContract.managerForDomain, inputs: ["domain": "s"], outputs: ["monitor": "o"],
                                  handler: .deferred { call in
                    let host = try HostSpecification(domain: call.body[0].stringValue ?? "")
                    return [.objectPath(try await create(host, for: try sender(of: call), in: monitors, callers: callers))]
                }),
                MethodDeclaration(name: ReachdContract.managerForAddress, inputs: ["address": "s"], outputs: ["monitor": "o"],
                                  handler: .deferred { call in
                    let host = try HostSpecification(address: call.body[0].stringValue ?? "")
                    return [.objectPath(try await create(host, for: try sender(of: call), in: monitors, callers: callers))]
                }),
                MethodDeclaration(name: ReachdContract.checkConnectivity, outputs: ["connectivity": "s"],
                                  handler: .deferred { _ in [.string(try await checker.check())] }),
                // A name its caller's account has no room to wait for is refused before any task
                // is made: a flood beyond the cap costs reachd (and the bus, which keeps every
                // unanswered call on one list) as little as a refusal can (issue 44).
                MethodDeclaration(name: ReachdContract.checkHost, inputs: ["host": "s"], outputs: ["status": "i", "flags": "u"],
                                  handler: .atOnceOrLater { _, call in
                    let host = try HostSpecification(domain: call.body[0].stringValue ?? "")
                    let caller = try sender(of: call)
                    let account = callers.account(of: caller)
                    try monitors.refuseIfNoRoom(host, for: account)
                    return .later {
                        let report = try await monitors.check(host, for: account, caller: caller.rawValue)
                        return [.int32(report.status.rawValue), .uint32(report.flags.rawValue)]
                    }
                }),
            ],
            properties: PublishedReachability.contractProperties.map { $0.declaration(current: current, cachedPer: replies) } + [
                // The registry advances `replies` as the count changes (`BusHostMonitors.countChangedAtOnce`).
                PropertyDeclaration(name: ReachdContract.monitorCount, signature: "u", cachedPer: replies,
                                    read: { .uint32(UInt32(monitors.count)) }),
                PropertyDeclaration(name: ReachdContract.networkNamespace, signature: "t", changeSignal: .constant,
                                    cachedPer: replies, read: { namespace }),
            ],
            signals: [
                SignalDeclaration(name: ReachdContract.reachabilityChanged, arguments: ["status": "i", "flags": "u"]),
            ])
    }

    /// A monitor owned by the caller's connection, under its account's cap; its object's path.
    private static func create(_ host: HostSpecification, for owner: BusName, in monitors: HostMonitorRegistry,
                               callers: CallerPolicy) async throws -> ObjectPath {
        let monitor = try await monitors.create(host: host, owner: owner.rawValue, account: callers.account(of: owner))
        return ReachdContract.monitorPath(monitor.id)
    }

    private static func sender(of call: Message) throws -> BusName {
        guard let sender = call.sender else { throw DBusError.invalidArgs("the call has no sender to own the monitor") }
        return sender
    }
}
