import CReachdDBus

extension Connection {
    /// Serves `interfaces` at `path`, with `Introspectable` and `Properties`
    /// generated from them (`Peer` is answered by libdbus itself).
    public func export(_ interfaces: [InterfaceDeclaration], at path: ObjectPath) throws(DBusError) {
        try objects.add(interfaces, at: path)
    }

    /// Sets the hook that admits or refuses each incoming call before dispatch; nil admits all.
    public func admitCalls(with hook: CallAdmissionHook?) {
        callAdmission = hook
    }

    /// Stops serving `path`; returns whether anything was there.
    @discardableResult
    public func unexport(_ path: ObjectPath) -> Bool {
        replies.forget(path)
        return objects.remove(at: path)
    }

    /// Emits one `PropertiesChanged` carrying the current values of `names`.
    public func emitPropertiesChanged(path: ObjectPath, interface: InterfaceName, names: [String]) throws(DBusError) {
        guard let declaration = objects.interface(interface, at: path) else {
            throw .unknownInterface("nothing exports \(interface) at \(path)")
        }
        var changed: [DictionaryEntry] = []
        var invalidated: [DBusValue] = []
        for name in names {
            guard let property = declaration.property(named: name) else {
                throw .unknownProperty("\(interface) has no property \(name)")
            }
            switch property.changeSignal {
            case .emits: changed.append(DictionaryEntry(.string(name), .variant(property.read())))
            case .invalidates: invalidated.append(.string(name))
            case .constant, .none: break
            }
        }
        try emitSignal(path: path, interface: .properties, member: "PropertiesChanged", body: [
            .string(interface.rawValue),
            .dictionary(key: "s", value: "v", changed),
            .array(element: "s", invalidated),
        ])
    }

    /// Answers one incoming method call (on the loop thread, in its turn: `serveCallTurns`). The
    /// admission hook sees the header alone; only an admitted call is checked against what its
    /// method takes (`ObjectTable.refusalBeforeReading`) and against `BodySize`, and only then are
    /// its arguments copied: a refused, misdirected, mistyped or oversized call costs the same
    /// whatever its size. A refused caller learns nothing but the hook's error, as before.
    ///
    /// A call whose admission waits (its caller is being identified) holds its sender's later
    /// calls back; once decided it goes back first in its sender's queue and is answered in its
    /// turn, so its reply, too, waits for the bus to keep up (`serveCallTurns`).
    func receiveCall(_ call: WaitingCall) {
        let header = MessageReader.read(call.raw, body: false)
        let admission: CallAdmission
        if let decided = call.decided {
            admission = decided
        } else if let callAdmission, !header.isAlwaysAdmitted {
            admission = callAdmission(self, header)
        } else {
            admission = .admit
        }
        switch admission {
        case .admit:
            answer(read(header, call.raw), to: header)
        case .refuse(let error):
            reply(to: header, error: error)
        case .decideLater(let decision):
            let sender = header.sender?.rawValue ?? ""
            callTurns.hold(sender)
            dbus_message_ref(call.raw)
            let bits = UInt(bitPattern: call.raw)
            Task {
                let refusal = await decision()
                self.decided(WaitingCall(raw: OpaquePointer(bitPattern: bits)!, decided: refusal.map(CallAdmission.refuse) ?? .admit),
                             from: sender)
            }
        }
    }

    private func decided(_ call: WaitingCall, from sender: String) {
        for gone in callTurns.release(sender, first: call, account: turnAccount(of: sender)) { dbus_message_unref(gone.raw) }
        serveCallTurns()
    }

    /// The call with its arguments, or why it will not be answered whatever they are.
    private func read(_ header: Message, _ raw: OpaquePointer) -> Result<Message, DBusError> {
        if let refusal = objects.refusalBeforeReading(header) { return .failure(refusal) }
        guard BodySize.fits(raw) else {
            return .failure(.limitsExceeded("the arguments of \(header.member?.rawValue ?? "the call") take more than "
                                            + "\(BodySize.limit / (1 << 20)) MiB once read, more than any method here accepts"))
        }
        var call = header
        call.body = MessageReader.readBody(raw)
        call.headerSignature = nil
        return .success(call)
    }

    private func answer(_ call: Result<Message, DBusError>, to header: Message) {
        switch call {
        case .success(let call): dispatch(call)
        case .failure(let error): reply(to: header, error: error)
        }
    }

    private func dispatch(_ call: Message) {
        if let cached = replies.reply(for: call) {
            return reply(to: call, reusing: cached)
        }
        switch objects.resolve(call) {
        case .reply(let body, let stamp):
            reply(to: call, body: body, expected: nil, caching: stamp)
        case .propertySet(let interface, let property):
            reply(to: call, body: [], expected: nil)
            if let path = call.path {
                try? emitPropertiesChanged(path: path, interface: interface, names: [property])
            }
        case .failure(let error):
            reply(to: call, error: error)
        case .method(let method):
            let expected = method.outputSignature
            switch method.handler {
            case .immediate(let handler):
                // Stamped before the handler reads anything (see `ReplyGeneration.stamp()`).
                let stamp = method.cachedPer?.stamp()
                do {
                    reply(to: call, body: try handler(self, call), expected: expected, caching: stamp)
                } catch {
                    reply(to: call, error: Self.dbusError(from: error))
                }
            case .deferred(let handler):
                answerLater(call, expected: expected) { try await handler(call) }
            case .atOnceOrLater(let handler):
                do {
                    switch try handler(self, call) {
                    case .now(let body): reply(to: call, body: body, expected: expected)
                    case .later(let work): answerLater(call, expected: expected, by: work)
                    }
                } catch {
                    reply(to: call, error: Self.dbusError(from: error))
                }
            }
        }
    }

    /// Runs `work` as a task and answers `call` when it returns.
    private func answerLater(_ call: Message, expected: Signature, by work: @escaping @Sendable () async throws -> [DBusValue]) {
        Task {
            do {
                let body = try await work()
                self.reply(to: call, body: body, expected: expected)
            } catch {
                self.reply(to: call, error: Self.dbusError(from: error))
            }
        }
    }

    private static func dbusError(from error: any Error) -> DBusError {
        (error as? DBusError) ?? .failed("\(error)")
    }

    /// `caching`: keep the reply, to send again while that generation holds.
    private func reply(to call: Message, body: [DBusValue], expected: Signature?, caching stamp: ReplyGeneration.Stamp? = nil) {
        guard !call.noReplyExpected else { return }
        let reply = call.methodReturn(body: body)
        if let expected, !reply.bodyHasSignature(expected) {
            // A handler bug must not reach the client as a wrongly typed reply.
            self.reply(to: call, error: .failed("internal error: the reply has type '\(reply.signature)', declared '\(expected)'"))
            return
        }
        do {
            if let stamp {
                let cached = try CachedReply(body: body, stamp: stamp)
                replies.store(cached, for: call)
                self.reply(to: call, reusing: cached)
            } else {
                try send(reply)
            }
        } catch {
            self.reply(to: call, error: error)
        }
    }

    /// Sends a copy of `cached` as the answer to `call`.
    private func reply(to call: Message, reusing cached: CachedReply) {
        guard !call.noReplyExpected else { return }
        do {
            let copy = try cached.copy(answering: call)
            defer { dbus_message_unref(copy) }
            try send(raw: copy)
        } catch {
            reply(to: call, error: error)
        }
    }

    private func reply(to call: Message, error: DBusError) {
        guard !call.noReplyExpected else { return }
        var message = call.errorReply(error)
        if !isValidDBusString(error.message) { message.body = [.string("(error text was not valid UTF-8)")] }
        _ = try? send(message)
    }
}
