// swift-tools-version: 6.1
// reachd: AFNetworking-style network reachability for Linux, served over D-Bus.
import PackageDescription

let package = Package(
    name: "reachd",
    products: [
        .library(name: "EventLoops", targets: ["EventLoops"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
        .library(name: "Reachability", targets: ["Reachability"]),
        .library(name: "ReachabilityNotifications", targets: ["ReachabilityNotifications"]),
        .executable(name: "reachd", targets: ["reachd"]),
        .executable(name: "reachctl", targets: ["reachctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // libdbus-1 as the system provides it; only CShims and DBus import it.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // One-line C wrappers for the libdbus macros and constants Swift cannot import.
        .target(name: "CShims", dependencies: ["CDBus"]),
        // The epoll, eventfd and signalfd headers Glibc's module lacks; headers only.
        .systemLibrary(name: "CEventLoops"),
        // glibc malloc tuning (<malloc.h>) for the service executable.
        .target(name: "CMemory"),
        // One-line wrappers for the rtnetlink macros Swift cannot import.
        .target(name: "CNetlink"),
        // libidn2 as the system provides it (IDNA 2008, UTS #46); only
        // ReachabilityEngine's IDNA.swift imports it.
        .systemLibrary(
            name: "CIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]
        ),
        // One thread's epoll loop: descriptors, timers, signals, Swift's executors.
        .target(name: "EventLoops", dependencies: ["CEventLoops"]),
        // Swift over libdbus, on an event loop: connection, messages, exported objects.
        .target(name: "DBus", dependencies: ["CDBus", "CShims", "EventLoops"]),
        // The meaning of reachd: flags, status and mapping tables. Pure, no I/O.
        .target(name: "ReachabilityCore"),
        // The D-Bus contract spelled once: names, errors and property tables,
        // for the service and the client library alike.
        .target(name: "ReachabilityContract", dependencies: ["DBus", "ReachabilityCore"]),
        // The engine (contract 4, §3.1): the sources (NetworkManager, systemd-networkd, the
        // kernel, reachd's own check), the change merger and the host monitors, with no front
        // end. reachd serves it on a bus; the client library runs it in-process.
        .target(
            name: "ReachabilityEngine",
            dependencies: [
                "DBus", "EventLoops", "ReachabilityCore", "ReachabilityContract", "CNetlink", "CIDN2",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The service's bus front end: the exported objects, the caller policy, the name.
        .target(
            name: "ReachabilityService",
            dependencies: [
                "DBus", "EventLoops", "ReachabilityCore", "ReachabilityContract", "ReachabilityEngine",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // reachd's version, one string generated from VERSION and the commit before each build
        // (Scripts/lib/version.sh), for `--version` of both executables.
        .target(name: "BuildVersion", plugins: ["BuildVersionPlugin"]),
        .plugin(name: "BuildVersionPlugin", capability: .buildTool()),
        // The executable: arguments, logging, signals, the one event loop. Thin.
        .executableTarget(
            name: "reachd",
            dependencies: [
                "EventLoops", "ReachabilityCore", "ReachabilityEngine", "ReachabilityService", "CMemory", "BuildVersion",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The client library: AFNetworkReachabilityManager's API over reachd.
        // It imports DBus and the contract internally (SE-0409): its users never see them.
        // Foundation-free, so that clients (reachctl among them) do not carry ICU.
        // Where no reachd shares the app's network namespace, it runs reachd's engine in-process.
        .target(
            name: "Reachability",
            dependencies: [
                "DBus", "EventLoops", "ReachabilityCore", "ReachabilityContract", "ReachabilityEngine",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // AFNetworking's NotificationCenter notification, for apps that want Foundation.
        .target(name: "ReachabilityNotifications", dependencies: ["Reachability"]),
        // The command line for people and scripts, on the client library.
        .executableTarget(
            name: "reachctl",
            dependencies: [
                "Reachability", "BuildVersion", "EventLoops",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The test harness the test targets share: child processes, private
        // buses, command-line tools, reachd and python-dbusmock's NetworkManager.
        .target(name: "TestSupport", dependencies: ["DBus"], path: "Tests/TestSupport"),
        .testTarget(
            name: "EventLoopsTests",
            dependencies: ["EventLoops", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "EventLoops", "TestSupport"]),
        // End to end: the reachd executable on private buses, against
        // python-dbusmock's NetworkManager and the real one in a namespace.
        .testTarget(name: "ReachdTests", dependencies: ["DBus", "ReachabilityCore", "reachd", "TestSupport"]),
        .testTarget(name: "HostMonitorTests", dependencies: ["DBus", "ReachabilityCore", "reachd", "TestSupport"]),
        // A small program embedding the library, run by the tests where an app would run (a
        // container with no bus, another network namespace): one line per update.
        .executableTarget(name: "reachability-updates", dependencies: ["Reachability"], path: "Tests/Fixtures/ReachabilityUpdates"),
        .testTarget(name: "ReachabilityTests",
                    dependencies: ["Reachability", "ReachabilityNotifications", "reachd", "reachctl", "reachability-updates", "TestSupport"]),
        // The GIO network-monitor module (Sources/reachd-gio-module, built by Scripts/lib/gio-module.sh)
        // in real GLib consumers: python3-gi scripts kept in consumers/, and xdg-desktop-portal.
        .testTarget(name: "GioModuleTests", dependencies: ["reachd", "TestSupport"], exclude: ["consumers"]),
        // The service's pure parts, without root, buses or network: netlink
        // parsing, host grammar, IDNA, the NetworkManager property cache, the merger.
        .testTarget(
            name: "ReachabilityServiceTests",
            dependencies: [
                "ReachabilityService", "ReachabilityEngine", "DBus", "ReachabilityCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReachabilityContractTests",
            dependencies: [
                "ReachabilityContract",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ReachabilityCoreTests",
            dependencies: [
                "ReachabilityCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
