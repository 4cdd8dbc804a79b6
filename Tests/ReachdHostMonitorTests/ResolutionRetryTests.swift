import ReachdDBus
import ReachdTestSupport
import Testing

/// A name whose DNS server did not answer is asked again while the network is up, so it comes
/// back when the server does, without waiting for a network change (Apple's openradar
/// 40291350: hosts whose resolution failed at wake stayed Not Reachable until the next change).
@Suite("Resolution retry", .serialized, .timeLimit(.minutes(2)))
struct ResolutionRetryTests {
    @Test func aNameComesBackWhenItsServerAnswersAgainWithNoNetworkEvent() async throws {
        try await withReachdInNamespace { namespaces, client in
            let monitor = try await client.managerForDomain(namespaces.dnsName)
            try await eventually(timeout: .seconds(20), "the first answer") {
                try await client.answer(of: monitor) == .reachableDirect
            }
            try await namespaces.harness("dns-stop")
            // A network change has reachd resolve again, and nobody answers.
            try await namespaces.inClient("address", "add", "198.18.0.1/32", "dev", "lo")
            try await eventually(timeout: .seconds(30), "the name cannot be resolved: not reachable") {
                try await client.answer(of: monitor) == .notReachable
            }
            try await namespaces.harness("dns-start")
            // No network event from here: only the retry (2, 4, 8 … s) can bring it back.
            try await eventually(timeout: .seconds(30), "the retry resolves it again") {
                try await client.answer(of: monitor) == .reachableDirect
            }
        }
    }
}
