import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The kernel path without NetworkManager: reachd asks the kernel as an
/// application's packet would be routed, with every `ip rule` applied, in a
/// network namespace of its own (`ReachdProcess.Network.privateWithDefaultRoute`:
/// `rv0` 192.0.2.2/24, default via 192.0.2.1) whose routes and rules each test
/// changes. Tunnels are tun devices a test process holds open (this kernel has
/// no wireguard module); nothing is ever sent.
@Suite("The kernel path", .serialized, .timeLimit(.minutes(3)))
struct KernelPathTests {
    /// What reachd publishes, read with busctl: Status, Flags, Interface, InterfaceType.
    struct Seen: Equatable, CustomStringConvertible {
        var status: Int32
        var flags: UInt32
        var interface: String
        var interfaceType: String
        var description: String { "status \(status) flags 0x\(String(flags, radix: 16)) via \(interfaceType) '\(interface)'" }
    }

    /// reachd in its own namespace with no system bus, and a way to run `ip` in that namespace.
    struct Lab {
        let session: PrivateBus
        let reachd: ReachdProcess

        /// `ip ARGUMENTS…` inside reachd's network namespace; a failure fails the test.
        func ip(_ arguments: String...) async throws {
            try await runToolChecked("/usr/bin/nsenter", ["--net=/proc/\(reachd.pid)/ns/net", "ip"] + arguments)
        }

        func seen() async throws -> Seen {
            let result = try await runToolChecked("busctl", [
                "--address=\(session.address)", "get-property", ReachdProcess.busName, ReachdProcess.path,
                ReachdProcess.interface, "Status", "Flags", "Interface", "InterfaceType"])
            let words = result.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
            // i 2 \n u 2 \n s "rv0" \n s "ethernet"
            guard words.count == 8, let status = Int32(words[1]), let flags = UInt32(words[3]) else {
                throw TestFailure("unexpected busctl output: \(result.transcript)")
            }
            return Seen(status: status, flags: flags, interface: words[5].trimmingCharacters(in: ["\""]),
                        interfaceType: words[7].trimmingCharacters(in: ["\""]))
        }

        /// Waits until reachd publishes `expected` (changes are evaluated at most every 250 ms).
        func expect(_ expected: Seen, _ what: String) async throws {
            var last: Seen?
            do {
                try await eventually(timeout: .seconds(10), "\(what): reachd publishes \(expected)") {
                    last = try await seen()
                    return last == expected
                }
            } catch {
                throw TestFailure("\(what): expected \(expected), reachd publishes \(last.map(\.description) ?? "nothing")\n\(reachd.standardError)")
            }
        }

        /// A tun device named `name` in reachd's namespace, held open (so it has
        /// carrier) by a child process until the returned process is stopped.
        func heldTun(_ name: String) async throws -> ChildProcess {
            // TUNSETIFF with IFF_TUN | IFF_NO_PI: the device lives as long as the descriptor.
            let script = """
                import fcntl, os, struct, sys, time
                fd = os.open('/dev/net/tun', os.O_RDWR)
                fcntl.ioctl(fd, 0x400454ca, struct.pack('16sH', sys.argv[1].encode(), 0x0001 | 0x1000))
                print('ready', flush=True)
                time.sleep(3600)
                """
            let holder = try ChildProcess("/usr/bin/nsenter", ["--net=/proc/\(reachd.pid)/ns/net", "/usr/bin/python3", "-c", script, name],
                                          unsetting: ["PYTHONPATH", "PYTHONHOME"])
            try await eventually(timeout: .seconds(10), "the tun holder is ready: \(holder.standardError)") {
                holder.standardOutput.contains("ready")
            }
            return holder
        }
    }

    static func withLab(_ body: (Lab) async throws -> Void) async throws {
        try requireRoot()
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress(), network: .privateWithDefaultRoute) { reachd in
            let lab = Lab(session: session, reachd: reachd)
            try await lab.expect(Self.ethernet, "at start, the kernel's path over rv0")
            try await body(lab)
        }
    }

    static func requireRoot() throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test needs root (it changes routes and rules in a network namespace); run the tests as root, e.g. with sudo -E Scripts/test")
        }
    }

    // Flags: TransientConnection 0x1, Reachable 0x2, IsDirect 0x20000.
    static let ethernet = Seen(status: 2, flags: 0x2, interface: "rv0", interfaceType: "ethernet")
    static let nothing = Seen(status: 0, flags: 0, interface: "", interfaceType: "none")
    static let tunnel = Seen(status: 2, flags: 0x20003, interface: "tun0", interfaceType: "vpn")

    @Test("wg-quick's full tunnel: every unmarked packet leaves by the tunnel; deleting only the fwmark rule brings the uplink back")
    func wgQuickPolicyRoutingFollowsTheRules() async throws {
        try await Self.withLab { lab in
            let holder = try await lab.heldTun("tun0")
            defer { holder.stop(SIGTERM) }
            try await lab.ip("address", "add", "10.9.0.2/32", "dev", "tun0")
            try await lab.ip("link", "set", "tun0", "up")
            // What wg-quick's add_default does for AllowedIPs 0.0.0.0/0.
            try await lab.ip("route", "add", "0.0.0.0/0", "dev", "tun0", "table", "51820")
            try await lab.ip("rule", "add", "not", "fwmark", "51820", "table", "51820")
            try await lab.ip("rule", "add", "table", "main", "suppress_prefixlength", "0")
            try await lab.expect(Self.tunnel, "wg-quick up")

            // Only a rule changes: reachd hears the rule group.
            try await lab.ip("rule", "del", "not", "fwmark", "51820", "table", "51820")
            try await lab.expect(Self.ethernet, "the fwmark rule deleted")
            try await lab.ip("rule", "add", "not", "fwmark", "51820", "table", "51820")
            try await lab.expect(Self.tunnel, "the fwmark rule back")

            // The tunnel's underlay goes: the tunnel is still up, but leads nowhere.
            try await lab.ip("route", "del", "default", "via", "192.0.2.1")
            try await lab.expect(Self.nothing, "the uplink's default route deleted under the tunnel")
            // With its device named: left to resolve 192.0.2.1 through the rules, the kernel
            // would put the new default route into the tunnel, which is no underlay at all.
            try await lab.ip("route", "add", "default", "via", "192.0.2.1", "dev", "rv0")
            try await lab.expect(Self.tunnel, "the uplink's default route back")
        }
    }

    @Test("a kill switch (a prohibit default in a rule's table) blocks every path: Not Reachable")
    func prohibitDefaultInARuleTableIsNotReachable() async throws {
        try await Self.withLab { lab in
            try await lab.ip("route", "add", "prohibit", "default", "table", "100")
            try await lab.ip("rule", "add", "priority", "100", "table", "100")
            try await lab.expect(Self.nothing, "kill switch on")
            try await lab.ip("rule", "del", "priority", "100", "table", "100")
            try await lab.expect(Self.ethernet, "kill switch off")
        }
    }

    @Test("IPv6 only, with a link-local gateway: reachable through the gateway, not IsDirect")
    func ipv6OnlyWithALinkLocalGatewayIsReachable() async throws {
        try await Self.withLab { lab in
            try await lab.ip("-6", "address", "add", "2001:db8:1::2/64", "dev", "rv0", "nodad")
            try await lab.ip("-6", "route", "add", "default", "via", "fe80::1", "dev", "rv0")
            try await lab.ip("route", "del", "default", "via", "192.0.2.1")
            try await lab.expect(Self.ethernet, "IPv4 default gone, IPv6 default via fe80::1")
            try await lab.ip("-6", "address", "del", "2001:db8:1::2/64", "dev", "rv0")
            try await lab.expect(Self.nothing, "only a link-local IPv6 source: no Internet path")
        }
    }

    @Test("an IPv4 default route via an IPv6 next hop (RFC 8950) is reachable through a gateway")
    func ipv4ViaInet6IsReachableWithAGateway() async throws {
        try await Self.withLab { lab in
            try await lab.ip("route", "replace", "default", "via", "inet6", "fe80::1", "dev", "rv0")
            // Same flags as via 192.0.2.1: a gateway, so no IsDirect.
            try await lab.expect(Self.ethernet, "default via inet6 fe80::1")
            try await lab.ip("route", "replace", "default", "dev", "rv0")
            try await lab.expect(Seen(status: 2, flags: 0x20002, interface: "rv0", interfaceType: "ethernet"),
                                 "default straight onto the link: IsDirect")
        }
    }

    @Test("multipath default routes and nexthop objects are read through to their gateway")
    func multipathAndNexthopObjectsAreReachable() async throws {
        try await Self.withLab { lab in
            try await lab.ip("route", "replace", "default", "nexthop", "via", "192.0.2.1", "dev", "rv0",
                             "nexthop", "via", "192.0.2.3", "dev", "rv0")
            try await lab.expect(Self.ethernet, "multipath default")
            try await lab.ip("route", "replace", "default", "dev", "rv0")
            try await lab.expect(Seen(status: 2, flags: 0x20002, interface: "rv0", interfaceType: "ethernet"), "between the two")
            try await lab.ip("nexthop", "add", "id", "1", "via", "192.0.2.1", "dev", "rv0")
            try await lab.ip("route", "replace", "default", "nhid", "1")
            try await lab.expect(Self.ethernet, "default by nexthop object")
        }
    }

    @Test("a docker-like bridge with carrier and no uplink route does not make the machine reachable")
    func bridgeWithCarrierAndNoUplinkIsNotReachable() async throws {
        try await Self.withLab { lab in
            try await lab.ip("link", "add", "dk0", "type", "bridge")
            try await lab.ip("link", "add", "dv0", "type", "veth", "peer", "name", "dv1")
            try await lab.ip("link", "set", "dv0", "master", "dk0")
            for link in ["dk0", "dv0", "dv1"] { try await lab.ip("link", "set", link, "up") }
            try await lab.ip("address", "add", "172.17.0.1/16", "dev", "dk0")
            try await lab.ip("route", "del", "default", "via", "192.0.2.1")
            try await lab.expect(Self.nothing, "only the bridge and its port are up")
            // rv0 has carrier but carries no path now: a host-side veth, like the bridge's port.
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent()
                .appendingPathComponent("reachctl").path
            // In reachd's namespace: a reachctl outside it would not use this reachd.
            let (tool, arguments) = lab.reachd.inItsNamespace(reachctl, ["wait", "--level", "link", "--timeout", "0"])
            let level = try await runTool(tool, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": lab.session.address])
            #expect(level.status == 1, "a bridge with carrier is no link an uplink is known by: \(level.transcript)")
        }
    }

    @Test("no route dump after start: route changes cost lookups, never a dump of the table")
    func routeChangesNeverDumpTheTable() async throws {
        try await Self.withLab { lab in
            let trace = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-strace-\(lab.reachd.pid)").path
            defer { try? FileManager.default.removeItem(atPath: trace) }
            let strace = try ChildProcess("/usr/bin/strace", ["-f", "-e", "trace=sendto,sendmsg", "-o", trace,
                                                              "-p", String(lab.reachd.pid)])
            try await eventually(timeout: .seconds(10), "strace attaches: \(strace.standardError)") {
                strace.standardError.contains("attached")
            }
            for index in 1...10 {
                try await lab.ip("route", "add", "198.18.\(index).0/24", "via", "192.0.2.1")
                try await Task.sleep(for: .milliseconds(300))
            }
            try await lab.expect(Self.ethernet, "after ten route changes")
            strace.stop(SIGINT)
            _ = try? await strace.exit(timeout: .seconds(10))
            let calls = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            // strace prints RTM_GETROUTE as its number (0x1a) and NLM_F_DUMP as NLM_F_ROOT|NLM_F_MATCH or by name.
            let lookups = calls.split(separator: "\n").filter { $0.contains("RTM_GETROUTE") || $0.contains("nlmsg_type=0x1a") }
            #expect(!lookups.isEmpty, "reachd looked routes up (strace saw: \(calls.prefix(2000)))")
            let dumps = lookups.filter { $0.contains("NLM_F_DUMP") || $0.contains("NLM_F_ROOT") || $0.contains("NLM_F_MATCH") }
            #expect(dumps.isEmpty, "route dumps after start: \(dumps)")
        }
    }
}

extension KernelPathTests {
    @Test("--probe-ipv4 names the address whose route stands for the Internet")
    func probeAddressOptionIsUsed() async throws {
        try Self.requireRoot()
        let session = try PrivateBus(.session)
        defer { session.stop() }
        // 192.0.2.7 is on rv0's own LAN: with it as the only probe, the path is that LAN route, IsDirect.
        try await withReachd(session: session, systemBus: absentSystemBusAddress(), network: .privateWithDefaultRoute,
                             arguments: ["--probe-ipv4", "192.0.2.7", "--probe-ipv6", "2001:db8::1"]) { reachd in
            let lab = Lab(session: session, reachd: reachd)
            try await lab.expect(Seen(status: 2, flags: 0x20002, interface: "rv0", interfaceType: "ethernet"),
                                 "the probe on the LAN")
        }
    }
}
