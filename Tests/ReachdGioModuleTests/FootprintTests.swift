import Foundation
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// What the module costs an app beyond its answer (contract 3 §1.2): no thread of its own,
    /// two match rules on the session bus. Time, memory and idle wake-ups are Scripts/bench's rows.
    @Suite("What the module adds to an app", .serialized, .timeLimit(.minutes(2)))
    struct FootprintTests {
        /// busctl's `a{sas} N "NAME" COUNT "RULE"… …` (rules quote with \', never ") by connection.
        static func matchRules(_ text: String) -> [String: [String]] {
            var tokens: [String] = []
            var rest = Substring(text)
            while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
                rest = rest[start...]
                if rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") {
                    tokens.append(String(rest[rest.index(after: rest.startIndex)..<end]))
                    rest = rest[rest.index(after: end)...]
                } else {
                    let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                    tokens.append(String(rest[..<end]))
                    rest = rest[end...]
                }
            }
            var rules: [String: [String]] = [:]
            var index = 2  // past "a{sas}" and the entry count
            while index + 1 < tokens.count, let count = Int(tokens[index + 1]) {
                rules[tokens[index]] = Array(tokens[(index + 2)..<min(index + 2 + count, tokens.count)])
                index += 2 + count
            }
            return rules
        }

        @Test("an app already on the session bus gets no new thread, and its connection two match rules: reachd's PropertiesChanged and its name's owner",
              arguments: ModuleBuild.allCases)
        func noThreadTwoMatchRules(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("footprint", build: build)
                defer { app.stop() }
                let footprint = try await app.first("footprint")
                #expect(footprint.type == "ReachdNetworkMonitor")
                #expect(footprint.threads_after == footprint.threads_before, "\(app.transcript)")

                let name = try #require(footprint.unique_name)
                let stats = try await lab.session.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules").standardOutput
                let rules = Self.matchRules(stats)[name] ?? []
                #expect(rules.count == 2, "the app's rules: \(rules)")
                #expect(rules.contains { $0.contains("member=\\'PropertiesChanged\\',path=\\'/io/reachd/Reachability1\\'") }, "\(rules)")
                #expect(rules.contains { $0.contains("member=\\'NameOwnerChanged\\'") && $0.contains("arg0=\\'io.reachd.Reachability1\\'") },
                        "\(rules)")
            }
        }
    }
}
