import ReachdDBus
import ReachdTestSupport

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
