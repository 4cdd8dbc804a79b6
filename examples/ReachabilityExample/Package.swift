// swift-tools-version: 6.1
// A program embedding reachd's client library: the README's "Embedding" section.
import PackageDescription

let package = Package(
    name: "ReachabilityExample",
    dependencies: [
        // In your own package: .package(url: "https://…/reachd.git", from: "1.0.0")
        .package(name: "reachd", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ReachabilityExample",
            dependencies: [.product(name: "Reachability", package: "reachd")]
        ),
    ]
)
