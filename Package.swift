// swift-tools-version: 6.1
// reachd: AFNetworking-style network reachability for Linux, served over D-Bus.
import Foundation
import PackageDescription

/// The corpus's files (Tests/Fixtures/Corpus/files, byte-identical to their projects; MANIFEST.tsv), by case:
/// each case is one module of the files an app of that project compiles together, its stubs, and
/// the few lines (Cases/NAME/Case.swift) that start it as the project's app does. Swift 5 language
/// mode, as the projects build them.
struct CorpusCase {
    let name: String
    /// The products (SystemConfiguration, Network) and stub modules (Stubs/NAME) the files import.
    let modules: [String]
    let files: [String]
    var sources: [String] { files.map { "files/" + $0 } + ["Cases/" + name] }
    init(_ name: String, _ modules: [String], _ files: [String]) { (self.name, self.modules, self.files) = (name, modules, files) }
    init(_ name: String, _ module: String, _ files: [String]) { self.init(name, [module], files) }
}
let corpus: [CorpusCase] = [
    .init("Embrace", "Network", ["embrace-io__embrace-apple-sdk/EmbraceReachabilityMonitor.swift"]),
    .init("LaunchDarkly", "SystemConfiguration", ["launchdarkly__ios-client-sdk/NetworkReporter.swift"]),
    .init("Ashleymills", "SystemConfiguration", ["ashleymills__Reachability.swift/Reachability.swift"]),
    .init("PostHog", "SystemConfiguration", ["PostHog__posthog-ios/Reachability.swift"]),
    .init("NetNewsWireReachability", "SystemConfiguration", ["Ranchero-Software__NetNewsWire/Reachability.swift"]),
    .init("PocketCasts", "SystemConfiguration", ["Automattic__pocket-casts-ios/Reachability.swift"]),
    .init("AmplifyReachability", "SystemConfiguration", ["aws-amplify__amplify-swift/AmplifyReachability.swift"]),
    .init("RxSwiftExample", "SystemConfiguration", ["ReactiveX__RxSwift/Reachability.swift"]),
    .init("Stats", "SystemConfiguration", ["exelban__stats/Reachability.swift"]),
    .init("Split", "SystemConfiguration", ["splitio__ios-client/NetworkReachabilityManager.swift"]),
    .init("Alamofire", "SystemConfiguration", ["Alamofire__Alamofire/NetworkReachabilityManager.swift"]),
    .init("Optimizely", "Network", ["optimizely__swift-sdk/NetworkReachability.swift"]),
    .init("Iterable", "Network", ["Iterable__swift-sdk/NetworkMonitor.swift"]),
    .init("Ruuvi", "Network", ["ruuvi__com.ruuvi.station.ios/Reachability.swift"]),
    .init("Automerge", "Network", ["automerge__automerge-repo-swift/NWPathMonitor+paths.swift"]),
    .init("AmplifyPinpoint", "Network", ["aws-amplify__amplify-swift/NetworkMonitor.swift"]),
    .init("AmplifyLogging", "Network", ["aws-amplify__amplify-swift/LoggingNetworkMonitor.swift"]),
    .init("Vsanthanam", "Network", ["vsanthanam__NetworkReachability/NetworkMonitor.swift",
                                   "vsanthanam__NetworkReachability/NetworkMonitor+Concurrency.swift"]),
    .init("SundialKit", "Network", ["brightdigit__SundialKit/PathMonitor.swift", "brightdigit__SundialKit/NWPathMonitor.swift"]),
    .init("DataDog", ["Network", "DatadogInternal"], ["DataDog__dd-sdk-ios/NetworkConnectionInfoPublisher.swift"]),
    .init("PromiseKit", ["SystemConfiguration", "PromiseKit"], ["PromiseKit__SystemConfiguration/SCNetworkReachability+Promise.swift"]),
    .init("Reactor", ["SystemConfiguration", "ReactiveSwift", "Result"], ["MailOnline__Reactor/Reachability.swift"]),
    .init("OpenTelemetry", "Network", ["open-telemetry__opentelemetry-swift/NetworkMonitor.swift"]),
    .init("DataDogReachability", ["Network", "SystemConfiguration", "DatadogInternal"],
          ["DataDog__dd-sdk-ios/at-4780395a/NetworkConnectionInfoPublisher.swift"]),
]

/// Every file and folder of the corpus a case can leave out: the others' files and cases, the manifest and notes.
let corpusFiles: [String] = {
    let root = Context.packageDirectory + "/Tests/Fixtures/Corpus"
    let files = (FileManager.default.enumerator(atPath: root + "/files")?.allObjects as? [String] ?? []).filter { file in
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root + "/files/" + file, isDirectory: &folder) && !folder.boolValue
    }.map { "files/" + $0 }
    let cases = ((try? FileManager.default.contentsOfDirectory(atPath: root + "/Cases")) ?? []).map { "Cases/" + $0 }
    return files + cases + ["MANIFEST.tsv", "NOTES.md", "README.md", "Support", "Stubs"]
}()

let package = Package(
    name: "reachd",
    products: [
        .library(name: "ReachdEventLoops", targets: ["ReachdEventLoops"]),
        .library(name: "ReachdDBus", targets: ["ReachdDBus"]),
        .library(name: "ReachdCore", targets: ["ReachdCore"]),
        .library(name: "ReachdKit", targets: ["ReachdKit"]),
        .library(name: "ReachdKitNotifications", targets: ["ReachdKitNotifications"]),
        // Apple's SCNetworkReachability API, for code written for Apple's systems (contract 5, §1).
        .library(name: "SystemConfiguration", targets: ["SystemConfiguration"]),
        // Apple's Network framework's path monitor (NWPathMonitor, NWPath), for code written for
        // Apple's platforms. The name is Apple's on purpose: docs/app-developers says how to alias it.
        .library(name: "Network", targets: ["Network"]),
        .executable(name: "reachd", targets: ["reachd"]),
        .executable(name: "reachctl", targets: ["reachctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // libdbus-1 as the system provides it; only CReachdDBusShims and ReachdDBus import it.
        .systemLibrary(
            name: "CReachdDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // One-line C wrappers for the libdbus macros and constants Swift cannot import.
        .target(name: "CReachdDBusShims", dependencies: ["CReachdDBus"]),
        // The epoll, eventfd and signalfd headers Glibc's module lacks; headers only.
        .systemLibrary(name: "CReachdEventLoops"),
        // glibc malloc tuning (<malloc.h>): the service executable's, and the trims after a flood (engine, D-Bus turns).
        .target(name: "CReachdMemory"),
        // One-line wrappers for the rtnetlink macros Swift cannot import.
        .target(name: "CReachdNetlink"),
        // libidn2 as the system provides it (IDNA 2008, UTS #46); only
        // ReachdEngine's IDNA.swift imports it.
        .systemLibrary(
            name: "CReachdIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]
        ),
        // One thread's epoll loop: descriptors, timers, signals, Swift's executors.
        .target(name: "ReachdEventLoops", dependencies: ["CReachdEventLoops"]),
        // Swift over libdbus, on an event loop: connection, messages, exported objects.
        .target(name: "ReachdDBus", dependencies: ["CReachdDBus", "CReachdDBusShims", "ReachdEventLoops", "CReachdMemory"]),
        // The meaning of reachd: flags, status and mapping tables. Pure, no I/O.
        .target(name: "ReachdCore"),
        // The D-Bus contract spelled once: names, errors and property tables,
        // for the service and the client library alike.
        .target(name: "ReachdContract", dependencies: ["ReachdDBus", "ReachdCore"]),
        // The engine (contract 4, §3.1): the sources (NetworkManager, systemd-networkd, the
        // kernel, reachd's own check), the change merger and the host monitors, with no front
        // end. reachd serves it on a bus; the client library runs it in-process.
        .target(
            name: "ReachdEngine",
            dependencies: [
                "ReachdDBus", "ReachdEventLoops", "ReachdCore", "ReachdContract", "CReachdNetlink", "CReachdIDN2",
                "CReachdMemory",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The service's bus front end: the exported objects, the caller policy, the name.
        .target(
            name: "ReachdService",
            dependencies: [
                "ReachdDBus", "ReachdEventLoops", "ReachdCore", "ReachdContract", "ReachdEngine",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // reachd's version, one string generated from VERSION and the commit before each build
        // (Scripts/lib/version.sh), for `--version` of both executables.
        .target(name: "ReachdBuildVersion", plugins: ["ReachdBuildVersionPlugin"]),
        .plugin(name: "ReachdBuildVersionPlugin", capability: .buildTool()),
        // The executable: arguments, logging, signals, the one event loop. Thin.
        .executableTarget(
            name: "reachd",
            dependencies: [
                "ReachdEventLoops", "ReachdDBus", "ReachdCore", "ReachdEngine", "ReachdService", "CReachdMemory", "ReachdBuildVersion",
                "ReachctlCommands",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The client library: AFNetworkReachabilityManager's API over reachd.
        // It imports ReachdDBus and the contract internally (SE-0409): its users never see them.
        // Foundation-free, so that clients (reachctl among them) do not carry ICU.
        // Where no reachd shares the app's network namespace, it runs reachd's engine in-process.
        .target(
            name: "ReachdKit",
            dependencies: [
                "ReachdDBus", "ReachdEventLoops", "ReachdCore", "ReachdContract", "ReachdEngine",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // AFNetworking's NotificationCenter notification, for apps that want Foundation.
        .target(name: "ReachdKitNotifications", dependencies: ["ReachdKit"]),
        // Apple's SCNetworkReachability functions and types, a thin front end over the client
        // library's NetworkReachabilityManager. Apple's name on purpose: code that does
        // `import SystemConfiguration` compiles unchanged (docs/app-developers: how to alias it).
        // It checks a host name where the engine does (ReachdEngine's HostSpecification), at creation.
        .target(name: "SystemConfiguration", dependencies: ["ReachdKit", "ReachdEngine"]),
        // NWPathMonitor and NWPath with Apple's members, a thin front end over the client
        // library's NetworkPathMonitor. FoundationEssentials for Apple's `Data` (no ICU).
        .target(name: "Network", dependencies: ["ReachdKit"]),
        // A command line declared once: parsing, --help, shell completions. reachctl's, in place of
        // swift-argument-parser, which brought FoundationEssentials and the regex modules along
        // (4.5 of reachctl's 16.5 MB stripped; issue 45).
        .target(name: "CommandGrammar"),
        // The command line for people and scripts, on the client library: reachctl's commands,
        // run by the reachctl executable and by reachd called reachctl (one program on an image).
        .target(name: "ReachctlCommands", dependencies: ["ReachdKit", "ReachdBuildVersion", "ReachdEventLoops", "CommandGrammar", "CReachdMemory"]),
        .executableTarget(name: "reachctl", dependencies: ["ReachctlCommands"]),

        // The test harness the test targets share: child processes, private
        // buses, command-line tools, reachd and python-dbusmock's NetworkManager.
        .target(name: "ReachdTestSupport", dependencies: ["ReachdDBus"], path: "Tests/ReachdTestSupport"),
        .testTarget(
            name: "ReachdEventLoopsTests",
            dependencies: ["ReachdEventLoops", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "CommandGrammarTests", dependencies: ["CommandGrammar"]),
        .testTarget(name: "ReachdDBusTests", dependencies: ["ReachdDBus", "ReachdEventLoops", "ReachdTestSupport"]),
        // End to end: the reachd executable on private buses, against
        // python-dbusmock's NetworkManager and the real one in a namespace.
        .testTarget(name: "ReachdTests", dependencies: ["ReachdDBus", "ReachdCore", "reachd", "ReachdTestSupport"]),
        .testTarget(name: "ReachdHostMonitorTests", dependencies: ["ReachdDBus", "ReachdCore", "reachd", "ReachdTestSupport"]),
        // A small program embedding the library, run by the tests where an app would run (a
        // container with no bus, another network namespace): one line per update.
        .executableTarget(name: "reachd-kit-updates", dependencies: ["ReachdKit"], path: "Tests/Fixtures/ReachdKitUpdates"),
        // Code written the way Apple's documentation and popular libraries write SCNetworkReachability
        // code (Tests/Fixtures/AppleSystemConfiguration/AppleCode), compiled unmodified, with a driver
        // the tests run where an app would run.
        .executableTarget(name: "reachd-fixture-apple-systemconfiguration", dependencies: ["SystemConfiguration", "ReachdKit", "ReachdEventLoops"],
                          path: "Tests/Fixtures/AppleSystemConfiguration"),
        // Callbacks as real code passes them (a global function, a local one, a closure literal) in
        // Swift 5 mode with warnings as errors, as an SDK may build: a warning fails the build.
        .executableTarget(name: "reachd-fixture-callback-swift-five", dependencies: ["SystemConfiguration"],
                          path: "Tests/Fixtures/CallbackSwiftFive",
                          swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-warnings-as-errors"])]),
        .testTarget(name: "ReachdKitTests",
                    dependencies: ["ReachdKit", "ReachdKitNotifications", "SystemConfiguration", "reachd", "reachctl",
                                   "reachd-kit-updates", "reachd-fixture-apple-systemconfiguration",
                                   "reachd-fixture-callback-swift-five", "ReachdTestSupport"]),
        // Code written for Apple's platforms against the Network product (Tests/Fixtures/AppleNetwork/
        // AppleCode), compiled as it is (Swift 5 language mode, as most such code is), with a driver
        // that prints what each client sees; the Apple-style tests run it where an app would run.
        .executableTarget(name: "reachd-fixture-apple-network", dependencies: ["Network"],
                          path: "Tests/Fixtures/AppleNetwork", swiftSettings: [.swiftLanguageMode(.v5)]),
        // One running path monitor, Apple's or the library's, for Scripts/bench's Network rows.
        .executableTarget(name: "reachd-bench-path-monitor", dependencies: ["Network", "ReachdKit", "ReachdEventLoops"],
                          path: "Tests/Fixtures/PathMonitorBench"),
        // The corpus (Tests/Fixtures/Corpus): real files from public apps and SDKs, each compiled
        // unchanged in a module of its own with only stubs for what it takes from its own SDK (Cases/NAME),
        // and one driver that runs any of them where an app would run.
        .target(name: "CorpusSupport", path: "Tests/Fixtures/Corpus/Support"),
        // Stubs of the modules corpus files import from their own SDKs (only what the files use).
        .target(name: "DatadogInternal", path: "Tests/Fixtures/Corpus/Stubs/DatadogInternal"),
        .target(name: "PromiseKit", path: "Tests/Fixtures/Corpus/Stubs/PromiseKit"),
        .target(name: "ReactiveSwift", path: "Tests/Fixtures/Corpus/Stubs/ReactiveSwift"),
        .target(name: "Result", path: "Tests/Fixtures/Corpus/Stubs/Result"),
        .executableTarget(name: "reachd-corpus", dependencies: ["CorpusSupport"] + corpus.map { .target(name: "Corpus" + $0.name) },
                          path: "Tests/Fixtures/CorpusDriver", swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "ReachdAppleNetworkTests",
                    dependencies: ["Network", "ReachdKit", "reachd", "reachd-fixture-apple-network", "reachd-corpus", "ReachdTestSupport"]),
        // The GIO network-monitor module (Sources/reachd-gio-module, built by Scripts/lib/gio-module.sh)
        // in real GLib consumers: python3-gi scripts kept in consumers/, and xdg-desktop-portal.
        .testTarget(name: "ReachdGioModuleTests", dependencies: ["reachd", "ReachdTestSupport"], exclude: ["consumers"]),
        // The service's pure parts, without root, buses or network: netlink
        // parsing, host grammar, IDNA, the NetworkManager property cache, the merger.
        .testTarget(
            name: "ReachdServiceTests",
            dependencies: [
                "ReachdService", "ReachdEngine", "ReachdDBus", "ReachdCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReachdContractTests",
            dependencies: [
                "ReachdContract",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ReachdCoreTests",
            dependencies: [
                "ReachdCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
package.targets += corpus.map { corpusCase in
    .target(name: "Corpus" + corpusCase.name, dependencies: ["CorpusSupport"] + corpusCase.modules.map { .target(name: $0) },
            path: "Tests/Fixtures/Corpus", exclude: corpusFiles.filter { !corpusCase.sources.contains($0) },
            sources: corpusCase.sources,
            // Others' code, compiled unchanged: four files warn where they hand a closure to Dispatch's
            // `async(execute:)`, whose block swift-corelibs-libdispatch marks @Sendable (Tests/Fixtures/Corpus/README.md).
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])])
}
