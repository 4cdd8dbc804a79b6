import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// SwiftPM refuses a package graph in which two packages declare targets of the same name, used or
/// not, and module aliases cannot help a target outside the product an app uses. So reachd names
/// every target of its own so that it meets no one else's: an app that already has targets named
/// as Reachability.swift's package (`Reachability`), other Swift D-Bus packages (`DBus`, `CDBus`)
/// and common test harnesses (`TestSupport`, `EventLoops`) declare them adds reachd's products
/// beside them, with no module aliases, and builds.
@Suite("Target names that coexist", .timeLimit(.minutes(15)))
struct TargetNameCoexistenceTests {
    /// Names other packages choose, each declared by the app itself.
    static let namesOthersUse = ["Reachability", "DBus", "CDBus", "TestSupport", "EventLoops"]

    @Test("an app declaring targets Reachability, DBus, CDBus, TestSupport and EventLoops loads and builds with reachd's products beside them")
    func appWithCommonTargetNamesBuildsWithReachd() async throws {
        let app = try AppPackage(reachdRoot: Executables.packageRoot.path, namesOthersUse: Self.namesOthersUse)
        defer { app.remove() }
        let swift = try #require(ExamplePackageTests.findSwift(), "no swift on PATH")
        // SwiftPM checks target names when it loads the graph, before any build; building the app's
        // own `Reachability` target loads the whole graph (the app's executable names reachd's
        // products) without building reachd a second time beside the suite's timed tests. The
        // example package's test builds and runs those products in an app.
        let build = try await runTool(swift, ["build", "--package-path", app.root, "--scratch-path", app.scratch,
                                              "--target", "Reachability"],
                                      environment: ["TMPDIR": try ExamplePackageTests.temporaryFolder(in: app.scratch)],
                                      timeout: .seconds(840))
        #expect(build.succeeded, "\(build.transcript)")
        #expect(!build.transcript.contains("conflicting name"), "\(build.transcript)")
        #expect(!build.standardOutput.contains("warning:"), "\(build.transcript)")
    }
}

/// A throwaway app package in the temporary folder, depending on reachd by path.
private struct AppPackage {
    let root: String
    let scratch: String

    init(reachdRoot: String, namesOthersUse: [String]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-coexist-\(UUID().uuidString.prefix(8))")
        root = base.appendingPathComponent("CoexistingApp").path
        scratch = base.appendingPathComponent("build").path
        let own = namesOthersUse.map { "\"\($0)\"" }.joined(separator: ", ")
        try write("Package.swift", """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "CoexistingApp",
                dependencies: [.package(name: "reachd", path: "\(reachdRoot)")],
                targets: [
                    \(namesOthersUse.filter { $0 != "CDBus" }.map { ".target(name: \"\($0)\")," }.joined(separator: "\n        "))
                    .target(name: "CDBus"),
                    .executableTarget(
                        name: "CoexistingApp",
                        dependencies: [
                            \(own),
                            .product(name: "ReachdKit", package: "reachd"),
                            .product(name: "SystemConfiguration", package: "reachd"),
                            .product(name: "Network", package: "reachd"),
                        ]
                    ),
                ]
            )
            """)
        for name in namesOthersUse where name != "CDBus" {
            try write("Sources/\(name)/\(name).swift", "public let moduleName = \"\(name)\"\n")
        }
        try write("Sources/CDBus/include/CDBus.h", "const char *cdbus_module_name(void);\n")
        try write("Sources/CDBus/CDBus.c", "#include \"CDBus.h\"\nconst char *cdbus_module_name(void) { return \"CDBus\"; }\n")
        let imports = namesOthersUse.map { "import \($0)" }.joined(separator: "\n")
        let names = namesOthersUse.map { $0 == "CDBus" ? "String(cString: cdbus_module_name())" : "\($0).moduleName" }
        try write("Sources/CoexistingApp/main.swift", """
            \(imports)
            import Network
            import ReachdKit
            import SystemConfiguration

            print("own modules: \\([\(names.joined(separator: ", "))].joined(separator: " "))")
            let manager = NetworkReachabilityManager(.defaultRoute, service: .inProcess)
            print("reachd: \\(manager.networkReachabilityStatus), \\(SCNetworkReachabilityFlags.reachable.rawValue), \\(NWInterface.InterfaceType.wifi)")

            """)
    }

    private func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func remove() {
        let base = URL(fileURLWithPath: root).deletingLastPathComponent()
        try? FileManager.default.removeItem(at: base)
        // SwiftPM also leaves lock files named after the scratch path in the temporary folder.
        let temporary = FileManager.default.temporaryDirectory
        let prefix = scratch.replacingOccurrences(of: "/", with: "_")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}
