import ReachdDBus
import ReachdTestSupport
import Testing

/// Many callers at once, ordered signals, timeouts and cancellation: the
/// promises of the one-loop-thread-per-connection design (docs/design.md, "One thread").
@Suite("Concurrency, ordering, timeouts and cancellation", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test("1,000 concurrent calls over 8 connections are each answered once, with their own result")
    func concurrentCallsGetTheirOwnAnswers() async throws {
        let connectionCount = 8
        let callsPerConnection = 125 // below the bus's default of 128 outstanding calls per connection
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName
                var clients: [Connection] = []
                do {
                    for _ in 0..<connectionCount { clients.append(try await Connection.open(address: bus.address)) }
                    let clientsSnapshot = clients
                    let answers = try await withThrowingTaskGroup(of: (Int32, [DBusValue]).self) { group in
                        for (index, client) in clientsSnapshot.enumerated() {
                            for call in 0..<callsPerConnection {
                                let argument = Int32(index * callsPerConnection + call)
                                group.addTask {
                                    let reply = try await client.call(
                                        destination: destination, path: TestObject.path, interface: TestObject.interface,
                                        member: "Add", body: [.int32(argument), .int32(1_000_000)])
                                    return (argument, reply)
                                }
                            }
                        }
                        var answers: [(Int32, [DBusValue])] = []
                        for try await answer in group { answers.append(answer) }
                        return answers
                    }
                    #expect(answers.count == connectionCount * callsPerConnection)
                    #expect(Set(answers.map(\.0)).count == connectionCount * callsPerConnection, "an argument was answered twice")
                    let wrong = answers.filter { $0.1 != [.int32($0.0 + 1_000_000)] }
                    #expect(wrong.isEmpty, "calls answered with another call's result: \(wrong.prefix(5))")
                } catch {
                    for client in clients { await client.close() }
                    throw error
                }
                for client in clients { await client.close() }
            }
        }
    }

    @Test("1,000 signals from one sender arrive in the order they were emitted")
    func signalsArriveInEmissionOrder() async throws {
        let count: UInt32 = 1000
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { sender in
                try await withConnection(to: bus) { receiver in
                    let signals = try await receiver.signals(matching: MatchRule(
                        sender: try await sender.requiredUniqueName, interface: "org.example.Sequence", member: "Number"))
                    for number in 0..<count {
                        try await sender.emitSignal(path: "/org/example/Sequence", interface: "org.example.Sequence",
                                                    member: "Number", body: [.uint32(number)])
                    }
                    var received: [UInt32] = []
                    for await signal in signals {
                        guard case .uint32(let number)? = signal.body.first else {
                            Issue.record("unexpected body \(signal.body)")
                            break
                        }
                        received.append(number)
                        if received.count == Int(count) { break }
                    }
                    #expect(received == Array(0..<count))
                }
            }
        }
    }

    @Test("signals emitted by an exported method while it is called arrive in call order")
    func signalsFromMethodCallsKeepCallOrder() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let said = try await client.signals(matching: MatchRule(sender: destination, interface: TestObject.interface,
                                                                            member: "Said"))
                    let texts = (0..<200).map { "message \($0)" }
                    // Sent without waiting for replies: the server must still handle them in arrival order.
                    for text in texts {
                        var call = Message.methodCall(destination: destination, path: TestObject.path,
                                                      interface: TestObject.interface, member: "Emit", body: [.string(text)])
                        call.noReplyExpected = true
                        try await client.send(call)
                    }
                    var received: [String] = []
                    for await signal in said {
                        received.append(signal.body.first?.stringValue ?? "?")
                        if received.count == texts.count { break }
                    }
                    #expect(received == texts)
                }
            }
        }
    }

    // No tight wall-clock bounds (shared, noisy machines): the reply is a
    // minute away, so returning within half of that proves the timeout fired.
    @Test("a call whose reply takes longer than its timeout throws NoReply instead of waiting")
    func shortTimeoutThrowsNoReply() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let clock = ContinuousClock()
                    let start = clock.now
                    let result = await outcome {
                        try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                              member: "Slow", body: [.uint32(60_000)], timeout: .milliseconds(100))
                    }
                    let elapsed = clock.now - start
                    #expect(result.dbusError?.name == "org.freedesktop.DBus.Error.NoReply", "\(result)")
                    #expect(elapsed >= .milliseconds(90), "gave up after \(elapsed)")
                    #expect(elapsed < .seconds(30), "gave up only after \(elapsed), not at the 100 ms timeout")
                    // The same connection goes on working, and the late reply is dropped.
                    let quick = try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                                      member: "Slow", body: [.uint32(1)], timeout: .seconds(10))
                    #expect(quick == [.uint32(1)])
                }
            }
        }
    }

    @Test("cancelling the task of a pending call throws CancellationError promptly and leaves the connection usable")
    func cancellingPendingCallThrowsCancellation() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let call = Task {
                        try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                              member: "Slow", body: [.uint32(60_000)])
                    }
                    // Let the call reach the server first, so it is truly pending.
                    try await Task.sleep(for: .milliseconds(200))
                    let clock = ContinuousClock()
                    let start = clock.now
                    call.cancel()
                    let result = await call.result
                    // The reply is a minute away: returning well before it means cancellation did it.
                    #expect(clock.now - start < .seconds(30))
                    #expect(throws: CancellationError.self) { try result.get() }
                    let sum = try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                                    member: "Add", body: [.int32(2), .int32(3)])
                    #expect(sum == [.int32(5)])
                    #expect(await client.isConnected)
                }
            }
        }
    }

    @Test("a call made by an already cancelled task throws CancellationError and the connection stays usable")
    func callFromCancelledTaskThrowsCancellation() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let call = Task {
                        withUnsafeCurrentTask { $0?.cancel() }
                        return try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                                     member: "Slow", body: [.uint32(60_000)])
                    }
                    let result = await call.result
                    #expect(throws: CancellationError.self) { try result.get() }
                    let sum = try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                                    member: "Add", body: [.int32(2), .int32(3)])
                    #expect(sum == [.int32(5)])
                }
            }
        }
    }
}
