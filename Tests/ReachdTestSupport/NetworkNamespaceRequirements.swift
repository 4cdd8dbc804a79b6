import Foundation
import Glibc

/// Tests that run a real NetworkManager in network namespaces of their own
/// (`Scripts/harness/nm-netns`) need root and what `Scripts/test` installs
/// (`network-manager`, `iproute2`). Without them such a test fails and says
/// what is missing: a skipped test reads as a pass in a green run, so a
/// machine that cannot run these would hide that they never ran.
public func requireNetworkNamespaceHarness(_ harness: String) throws {
    guard geteuid() == 0 else {
        throw TestFailure("""
            this test needs root (it makes network namespaces and runs NetworkManager in one); \
            run the tests as root, e.g. with sudo -E Scripts/test
            """)
    }
    guard access(harness, X_OK) == 0 else { throw TestFailure("the harness script \(harness) is missing") }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
    let missing = ["NetworkManager", "nmcli", "ip"].filter { tool in
        !path.split(separator: ":").contains { access("\($0)/\(tool)", X_OK) == 0 }
    }
    guard missing.isEmpty else {
        throw TestFailure("""
            this test runs a real NetworkManager, but \(missing.joined(separator: ", ")) is not on PATH (\(path)); \
            Scripts/test installs network-manager and iproute2 with everything else the tests need
            """)
    }
}
