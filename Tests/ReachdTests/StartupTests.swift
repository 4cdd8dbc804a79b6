import ReachdTestSupport
import Testing

/// The first answer after the name appears is already the real one
/// (docs/design.md, "Start-up": the first value is computed before
/// the name is requested, so a client never sees a start-up Unknown).
@Suite("reachd's first answer", .timeLimit(.minutes(2)))
struct StartupTests {
    @Test("with NetworkManager up, the first Get that succeeds is NetworkManager's answer, never Unknown (10 starts)")
    func firstAnswerIsNetworkManagers() async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let networkManager = try await NetworkManagerMock(on: system)
        defer { networkManager.stop() }
        // DISCONNECTED: NetworkManager's answer (0) differs from Unknown (-1)
        // and from the kernel's view in reachd's namespace (2).
        try await networkManager.setState(20)
        var attemptsPerRun: [Int] = []
        for run in 1...10 {
            try await withPrivateBus { session in
                // --no-override: the cross-check would publish the kernel's path over
                // the DISCONNECTED mock after a second, and a busy machine can take that long.
                let reachd = try ReachdProcess(session: session, systemBus: system.address, arguments: ["--no-override"])
                defer { reachd.stop() }
                var first: ToolResult?
                var attempts = 0
                try await eventually(timeout: .seconds(10), pollingEvery: .zero, "reachd answers (run \(run)); stderr:\n\(reachd.standardError)") {
                    attempts += 1
                    let result = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path,
                                                          ReachdProcess.interface, "Status", "Backend")
                    if result.succeeded { first = result }
                    return result.succeeded
                }
                #expect(first?.standardOutput == "i 0\ns \"networkmanager\"\n",
                        "run \(run), first success after \(attempts) attempts: \(first?.transcript ?? "")")
                attemptsPerRun.append(attempts)
            }
        }
        // Otherwise the loop never raced reachd's start-up and proved nothing.
        #expect(attemptsPerRun.contains { $0 > 1 }, "polling began before the name appeared: attempts \(attemptsPerRun)")
    }
}
