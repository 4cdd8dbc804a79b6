import Foundation

/// The products under test, built next to the test bundle (the test target depends on them).
enum Executables {
    static let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    static let reachd = directory.appendingPathComponent("reachd").path
    static let reachctl = directory.appendingPathComponent("reachctl").path
    /// A small program embedding the library (Tests/Fixtures/ReachdKitUpdates).
    static let reachabilityUpdates = directory.appendingPathComponent("reachd-kit-updates").path
    /// Apple-style SystemConfiguration code and its driver (Tests/Fixtures/AppleSystemConfiguration).
    static let appleSystemConfiguration = directory.appendingPathComponent("reachd-fixture-apple-systemconfiguration").path
    /// Callbacks of each kind real code passes, built in Swift 5 mode with warnings as errors
    /// (Tests/Fixtures/CallbackSwiftFive).
    static let callbackSwiftFive = directory.appendingPathComponent("reachd-fixture-callback-swift-five").path
    /// The reachd package's root (this file is Tests/ReachdKitTests/Support/Executables.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
