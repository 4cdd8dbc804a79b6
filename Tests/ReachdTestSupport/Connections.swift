import ReachdDBus

/// Opens a ReachdDBus-library connection to `bus`, runs `body`, and closes the
/// connection on every path out, so a failing expectation never leaves a
/// loop thread behind.
public func withConnection<T>(to bus: PrivateBus, _ body: (Connection) async throws -> T) async throws -> T {
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

/// Captures an async throwing call's outcome, to inspect the error it threw.
public func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result {
    /// The D-Bus error this result failed with, if any.
    public var dbusError: DBusError? {
        if case .failure(let error) = self { return error as? DBusError }
        return nil
    }
}
