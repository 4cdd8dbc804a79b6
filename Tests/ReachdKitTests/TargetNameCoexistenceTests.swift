import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// SwiftPM refuses a package graph in which two packages declare targets of the same name, unless
/// the product that brings one is given a module alias where it is used. So reachd names
/// every target of its own so that it meets no one else's: an app that already has targets named
/// as Reachability.swift's package (`Reachability`), other Swift D-Bus packages (`DBus`, `CDBus`)
/// and common test harnesses (`TestSupport`, `EventLoops`) declare them adds reachd's products
/// beside them, with no module aliases, and builds. The corpus's stub modules carry the names of the
/// SDKs they stand in for (`PromiseKit`, `ReactiveSwift`, `Result`, `DatadogInternal`: the corpus's
/// files import them by name); no product of reachd's reaches them, so an app that has the real ones builds too.
@Suite("Target names that coexist", .timeLimit(.minutes(15)))
struct TargetNameCoexistenceTests {
    /// Names other packages choose, each declared by the app itself.
    static let namesOthersUse = ["Reachability", "DBus", "CDBus", "TestSupport", "EventLoops", "PromiseKit", "ReactiveSwift", "Result", "DatadogInternal"]

    @Test("an app declaring targets Reachability, DBus, CDBus, TestSupport, EventLoops, PromiseKit, ReactiveSwift, Result and DatadogInternal loads and builds with reachd's products beside them")
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

    @Test("another package's target named Network: SwiftPM refuses the graph, and a module alias on reachd's product lets both coexist")
    func anotherNetworkTargetCoexistsThroughAnAlias() async throws {
        let swift = try #require(ExamplePackageTests.findSwift(), "no swift on PATH")
        for aliased in [false, true] {
            let app = try AliasedApp(reachdRoot: Executables.packageRoot.path, aliased: aliased)
            defer { app.remove() }
            // Loading the graph is what SwiftPM refuses; building the other package's own target loads it
            // without building reachd.
            let build = try await runTool(swift, ["build", "--package-path", app.root, "--scratch-path", app.scratch,
                                                  "--target", "OtherKit"],
                                          environment: ["TMPDIR": try ExamplePackageTests.temporaryFolder(in: app.scratch)],
                                          timeout: .seconds(600))
            if aliased {
                #expect(build.succeeded, "\(build.transcript)")
            } else {
                #expect(!build.succeeded && build.transcript.contains("conflicting name: 'Network"), "\(build.transcript)")
            }
        }
    }
}

/// An app beside another package whose product depends on a target `Network`, using reachd's
/// `Network` product with or without a module alias.
private struct AliasedApp {
    let root: String
    let scratch: String
    private let base: URL

    init(reachdRoot: String, aliased: Bool) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-alias-\(UUID().uuidString.prefix(8))")
        root = base.appendingPathComponent("App").path
        scratch = base.appendingPathComponent("build").path
        let alias = aliased ? ", moduleAliases: [\"Network\": \"ReachdNetwork\"]" : ""
        // SwiftPM knows a path dependency by its folder's name (a clone may be in any folder):
        // products and aliases name that identity, as an app's manifest would.
        let identity = URL(fileURLWithPath: reachdRoot).lastPathComponent.lowercased()
        try write("Other/Package.swift", """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "Other",
                products: [.library(name: "OtherKit", targets: ["OtherKit"])],
                targets: [.target(name: "Network"), .target(name: "OtherKit", dependencies: ["Network"])]
            )
            """)
        try write("Other/Sources/Network/Network.swift", "public let otherNetwork = \"other\"\n")
        try write("Other/Sources/OtherKit/OtherKit.swift", "import Network\npublic let otherKit = otherNetwork\n")
        try write("App/Package.swift", """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "App",
                dependencies: [.package(path: "\(reachdRoot)"), .package(path: "../Other")],
                targets: [
                    .executableTarget(name: "App", dependencies: [
                        .product(name: "Network", package: "\(identity)"\(alias)),
                        .product(name: "OtherKit", package: "Other"),
                    ]),
                ]
            )
            """)
        try write("App/Sources/App/main.swift", "import ReachdNetwork\nimport OtherKit\nprint(NWInterface.InterfaceType.wifi, otherKit)\n")
    }

    private func write(_ relative: String, _ text: String) throws {
        let url = base.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: base)
        let temporary = FileManager.default.temporaryDirectory
        let prefix = scratch.replacingOccurrences(of: "/", with: "_")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
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
