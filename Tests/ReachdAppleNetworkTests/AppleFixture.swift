import Foundation
import ReachdTestSupport

/// The Apple-style code (Tests/Fixtures/AppleNetwork) and its driver, built next to the test bundle.
enum AppleFixture {
    static let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    static let executable = directory.appendingPathComponent("reachd-fixture-apple-network").path
    /// Tests/Fixtures/AppleNetwork (this file is Tests/ReachdAppleNetworkTests/AppleFixture.swift):
    /// the Apple-style files in AppleCode/, the driver in main.swift.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/AppleNetwork")

    /// The lines a client of the running fixture printed (`singleton status=…` → `status=…`).
    static func lines(of client: String, in child: ChildProcess) -> [String] {
        child.standardOutput.split(separator: "\n").filter { $0.hasPrefix(client + " ") }.map { String($0.dropFirst(client.count + 1)) }
    }

    /// One field of a line: `status`, `expensive`, `uses`, `interfaces`, `gateways`, …
    static func field(_ name: String, of line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }
}
