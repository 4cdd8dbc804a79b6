// swift-tools-version: 6.1
// reachd: AFNetworking-style network reachability for Linux, served over D-Bus.
import PackageDescription

let package = Package(
    name: "reachd",
    products: [
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // libdbus-1 as the system provides it; only CShims and DBus import it.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // One-line C wrappers for the macros and constants Swift cannot import.
        .target(name: "CShims", dependencies: ["CDBus"]),
        // Swift over libdbus: event loop, connection, messages, exported objects.
        .target(name: "DBus", dependencies: ["CDBus", "CShims"]),
        // The meaning of reachd: flags, status and mapping tables. Pure, no I/O.
        .target(name: "ReachabilityCore"),

        .testTarget(name: "DBusTests", dependencies: ["DBus"]),
        .testTarget(
            name: "ReachabilityCoreTests",
            dependencies: [
                "ReachabilityCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
