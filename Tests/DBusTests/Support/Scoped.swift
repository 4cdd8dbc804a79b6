import DBus

/// Opens a connection to `bus`, runs `body`, and closes the connection on
/// every path out, so a failing expectation never leaves a loop thread behind.
func withConnection<T>(to bus: PrivateBus, _ body: (Connection) async throws -> T) async throws -> T {
    let connection = try await Connection.open(address: bus.address)
    do {
        let result = try await body(connection)
        await connection.close()
        return result
    } catch {
        await connection.close()
        throw error
    }
}

/// Serves a `TestObject` on `bus` for the duration of `body`; the server's
/// connection is closed on every path out.
func withTestObject<T>(on bus: PrivateBus, _ body: (Connection, TestObject) async throws -> T) async throws -> T {
    let (server, object) = try await TestObject.serve(on: bus.address)
    do {
        let result = try await body(server, object)
        await server.close()
        return result
    } catch {
        await server.close()
        throw error
    }
}

extension Connection {
    /// The unique name, which every test connection has once `open` returns.
    var requiredUniqueName: BusName {
        get throws {
            guard let uniqueName else { throw TestFailure("the connection has no unique name") }
            return uniqueName
        }
    }
}

extension Result {
    /// The D-Bus error this result failed with, if any.
    var dbusError: DBusError? {
        if case .failure(let error) = self { return error as? DBusError }
        return nil
    }
}

/// Captures an async throwing call's outcome, to inspect the error it threw.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
