import Foundation
import ReachdTestSupport
import Testing

/// contract-2 §1.6 over the real NetworkManager: where its word and the kernel's differ,
/// and where reachd must take NetworkManager's word however the kernel routes.
extension RealNetworkManagerTests {
    @Test("T1.1, T1.4: NetworkManager CONNECTED_LOCAL, then an uplink it does not manage: Reachable over it only after the override delay (R8); the uplink's link down ends the override at once")
    func unmanagedUplinkOverridesConnectedLocal() async throws {
        // Longer than the default 1 s, so that "at once" on the way back stays far from "after
        // the delay" on a loaded machine (as in CrossCheckTests).
        let delay = Duration.seconds(3)
        try await Self.withReachdOverRealNetworkManager(arguments: ["--override-delay-ms", "3000"],
                                                        prepare: Self.makeLocalOnly) { namespaces, reachd, property in
            try await eventually(timeout: .seconds(10), "NetworkManager's CONNECTED_LOCAL published") {
                try await property("Status") == "i 0"
            }
            #expect(try await property("Source") == "s \"networkmanager\"")

            // The disagreement begins with the default route over rdu0. The clock is read before
            // that route is added, so the time `ip` takes to exit, and the time it takes to notice
            // that, can only lengthen what is measured, never hide an early override.
            let routeAdded = try await Self.addUnmanagedUplink(namespaces)
            try await eventually(timeout: .seconds(15), pollingEvery: .milliseconds(50), "overridden:\n\(reachd.standardError)") {
                try await property("Status") == "i 2"
            }
            let overridden = Self.monotonicNow()
            #expect(overridden - routeAdded >= delay, "overridden \(overridden - routeAdded) after the route was added, before the delay")
            let details = try await property("Details")
            #expect(details.contains("\"override-rule\" s \"R8\""))
            // reachd's own clock agrees: the disagreement it timed began with the route.
            let since = Self.overrideSince(details)
            #expect(since.map { $0 >= routeAdded && $0 <= overridden } == true,
                    "override-since-usec \(String(describing: since)) lies between the route (\(routeAdded)) and the override seen (\(overridden)): \(details)")
            #expect(try await property("Source") == "s \"netlink-override\"")
            #expect(try await property("Interface") == "s \"rdu0\"")
            #expect(try await Self.networkManagerState(namespaces) == "50")

            // Going back to NetworkManager's word is never delayed. Timed from before the link
            // goes down, a way back that waited for the delay would take at least the delay;
            // one that does not has all of it (3 s) for ip, reachd and busctl, however loaded.
            let linkDown = Self.monotonicNow()
            try await runToolChecked("ip", ["-n", try namespaces.value("CLIENT_NETNS"), "link", "set", "rdu0", "down"])
            try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(50), "back to NetworkManager's word") {
                try await property("Status") == "i 0"
            }
            let back = Self.monotonicNow() - linkDown
            #expect(back < delay, "no override delay on the way back: \(back)")
            #expect(try await property("Source") == "s \"networkmanager\"")
        }
    }

    @Test("T1.3: an uplink NetworkManager manages but someone else configured (connected externally): Reachable over it, and the source says whose word that is")
    func externallyConfiguredUplinkIsReachable() async throws {
        try await Self.withReachdOverRealNetworkManager(prepare: Self.makeLocalOnly) { namespaces, reachd, property in
            try await eventually(timeout: .seconds(10), "NetworkManager's CONNECTED_LOCAL published") {
                try await property("Status") == "i 0"
            }
            // Not rdu*: NetworkManager manages it, sees its address and route and adopts them as
            // an external connection, without changing them.
            try await Self.addUnmanagedUplink(namespaces, named: "rde")
            try await eventually(timeout: .seconds(15), "Reachable over rde0:\n\(reachd.standardError)") {
                try await property("Status") == "i 2"
            }
            #expect(try await property("Interface") == "s \"rde0\"")
            try await eventually(timeout: .seconds(10), "NetworkManager shows rde0 connected (externally)") {
                try await Self.nmcliOutput(namespaces, ["-t", "-f", "DEVICE,STATE", "device", "status"])
                    .contains("rde0:connected (externally)")
            }
            // contract-2 §8 leaves open whether NetworkManager makes an external connection's
            // default route its own (then it says CONNECTED_GLOBAL and reachd follows it) or not
            // (then it still says CONNECTED_LOCAL and reachd overrides it). Either way, Reachable.
            // NetworkManager 1.42.4 (Debian 12) does not: it says CONNECTED_LOCAL.
            let state = try await Self.networkManagerState(namespaces), source = try await property("Source")
            let expected = state == "70" ? "s \"networkmanager\"" : "s \"netlink-override\""
            #expect(source == expected, "NetworkManager says \(state), reachd's source is \(source)")
            print("T1.3: NetworkManager says \(state) over the external connection; reachd's Source is \(source)")
        }
    }

    @Test("T1.12: --no-override publishes NetworkManager's CONNECTED_LOCAL however long the kernel routes over an unmanaged uplink")
    func noOverrideKeepsNetworkManagersWord() async throws {
        let prepare = { (namespaces: Namespaces) async throws in
            try await Self.makeLocalOnly(namespaces)
            try await Self.addUnmanagedUplink(namespaces)
        }
        try await Self.withReachdOverRealNetworkManager(arguments: ["--no-override"], prepare: prepare) { _, reachd, property in
            try await eventually(timeout: .seconds(10), "started") { try await property("Source") == "s \"networkmanager\"" }
            for _ in 0..<6 {  // 3 s: three times the override delay
                #expect(try await property("Status") == "i 0", "\(reachd.standardError)")
                #expect(try await property("Source") == "s \"networkmanager\"")
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    @Test("T1.5, T1.6: CONNECTING over the veth NetworkManager controls is never overridden, though the kernel routes over it (R10); a path over an unmanaged uplink is (R9)")
    func connectingOverControlledDeviceStands() async throws {
        try await Self.withReachdOverRealNetworkManager { namespaces, reachd, property in
            try await eventually(timeout: .seconds(10), "connected at start") { try await property("Status") == "i 2" }
            let client = try namespaces.value("CLIENT_NETNS"), device = try namespaces.value("CLIENT_IF")
            // DHCP with no DHCP server in the peer namespace: NetworkManager stays CONNECTING.
            try await Self.nmcli(namespaces, ["connection", "modify", "reachd-wired", "ipv4.method", "auto",
                                              "ipv4.addresses", "", "ipv4.gateway", ""])
            try await Self.nmcli(namespaces, ["--wait", "0", "connection", "up", "reachd-wired"])
            try await eventually(timeout: .seconds(15), pollingEvery: .milliseconds(200), "NetworkManager says CONNECTING") {
                try await Self.networkManagerState(namespaces) == "40"
            }
            // Meanwhile someone routes over the device by hand.
            let address = try namespaces.value("CLIENT_ADDR"), gateway = try namespaces.value("PEER_ADDR")
            try await runToolChecked("ip", ["-n", client, "address", "add", "\(address)/24", "dev", device])
            try await runToolChecked("ip", ["-n", client, "route", "add", "default", "via", gateway, "dev", device,
                                             "metric", "100"])
            try await Task.sleep(for: .seconds(2))  // twice the override delay
            #expect(try await Self.networkManagerState(namespaces) == "40", "NetworkManager still activating")
            let route = try await runToolChecked("ip", ["-n", client, "route", "get", "192.0.2.1"]).standardOutput
            #expect(route.contains("dev \(device)"), "the kernel routes over the device: \(route)")
            #expect(try await property("Status") == "i 0", "\(reachd.standardError)")
            #expect(try await property("Flags") == "u 4", "ConnectionRequired")
            #expect(try await property("Source") == "s \"networkmanager\"")
            #expect(try await property("UnsatisfiedReason") == "s \"connecting\"")

            // A path over a device NetworkManager cannot touch (metric 50, before the veth's 100)
            // does not wait for NetworkManager's activation.
            try await Self.addUnmanagedUplink(namespaces)
            try await eventually(timeout: .seconds(10), "overridden:\n\(reachd.standardError)") {
                try await property("Status") == "i 2"
            }
            #expect(try await property("Source") == "s \"netlink-override\"")
            #expect(try await property("Details").contains("\"override-rule\" s \"R9\""))
            #expect(try await Self.networkManagerState(namespaces) == "40")
        }
    }
}

extension RealNetworkManagerTests {
    /// A second veth, configured by hand (as ifupdown, a VPN or a cloud agent would), which
    /// nm-netns's NetworkManager leaves unmanaged (rdu*), with the lower-metric default route.
    /// `prefix` names the pair (`rdu0`, `rdu1`); nm-netns's NetworkManager leaves rdu* alone.
    /// Returns CLOCK_MONOTONIC just before the default route was added (the kernel's path
    /// changes then), for time bounds that must start before the action.
    @discardableResult
    static func addUnmanagedUplink(_ namespaces: Namespaces, named prefix: String = "rdu") async throws -> Duration {
        let client = try namespaces.value("CLIENT_NETNS"), peer = try namespaces.value("PEER_NETNS")
        let near = prefix + "0", far = prefix + "1"
        for command in [
            ["-n", client, "link", "add", near, "type", "veth", "peer", "name", far, "netns", peer],
            ["-n", peer, "link", "set", far, "up"],
            ["-n", client, "address", "add", "10.77.0.2/24", "dev", near],
            ["-n", client, "link", "set", near, "up"],
        ] {
            try await runToolChecked("ip", command)
        }
        let routeAdded = monotonicNow()
        try await runToolChecked("ip", ["-n", client, "route", "add", "default", "via", "10.77.0.1", "dev", near, "metric", "50"])
        return routeAdded
    }

    /// CLOCK_MONOTONIC now: the clock of `Details`' `override-since-usec`.
    static func monotonicNow() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// `override-since-usec` in `Details` as busctl prints it (`"override-since-usec" t 123`),
    /// as a CLOCK_MONOTONIC instant like `monotonicNow()`'s.
    static func overrideSince(_ details: String) -> Duration? {
        guard let match = details.firstMatch(of: /"override-since-usec" t (\d+)/), let microseconds = Int64(match.output.1) else {
            return nil
        }
        return .microseconds(microseconds)
    }

    /// NetworkManager's profile made never-default and activated again: its veth keeps its
    /// address but no default route, and NetworkManager says CONNECTED_LOCAL (50).
    static func makeLocalOnly(_ namespaces: Namespaces) async throws {
        try await nmcli(namespaces, ["connection", "modify", "reachd-wired", "ipv4.never-default", "yes"])
        try await nmcli(namespaces, ["connection", "up", "reachd-wired"])
        try await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(200), "NetworkManager says CONNECTED_LOCAL") {
            try await networkManagerState(namespaces) == "50"
        }
    }

    /// nmcli on the namespaces' system bus.
    static func nmcli(_ namespaces: Namespaces, _ arguments: [String]) async throws {
        _ = try await nmcliOutput(namespaces, arguments)
    }

    /// nmcli on the namespaces' system bus; what it printed.
    static func nmcliOutput(_ namespaces: Namespaces, _ arguments: [String]) async throws -> String {
        try await runToolChecked("nmcli", arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": try namespaces.value("SYSTEM_BUS_ADDRESS")],
                                 timeout: .seconds(30)).standardOutput
    }
}
