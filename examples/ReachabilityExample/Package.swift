// swift-tools-version: 6.1
// A program embedding reachd's client library (README.md here; docs/app-developers/library.md).
import PackageDescription

let package = Package(
    name: "ReachabilityExample",
    dependencies: [
        // In your own package: .package(url: "https://github.com/reachd/reachd.git", branch: "main"),
        // or from: "1.1.0" once releases are tagged. A package on disk is named after its
        // folder unless given a name, so name it: the product below says package "reachd".
        .package(name: "reachd", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ReachabilityExample",
            dependencies: [.product(name: "ReachdKit", package: "reachd")]
        ),
        // Apple-platform code, unchanged: Apple's module names, answered by reachd.
        .executableTarget(
            name: "AppleStyleExample",
            dependencies: [
                .product(name: "SystemConfiguration", package: "reachd"),
                .product(name: "Network", package: "reachd"),
            ]
        ),
    ]
)
