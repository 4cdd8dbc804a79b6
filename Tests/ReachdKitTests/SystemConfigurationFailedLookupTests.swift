import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// `SCNetworkReachabilityGetFlags` on a name whose lookup fails (issue 39, contract 6 §5): `true`
/// with flags 0 as soon as it fails, on every call alike, as Apple's; `false` with
/// `kSCStatusReachabilityUnknown` only for a lookup still pending at the one-second bound.
/// Polled the way code that polls does, in a namespace whose resolver fails at once.
@Suite("SystemConfiguration: GetFlags on a name whose lookup fails", .timeLimit(.minutes(3)))
struct SystemConfigurationFailedLookupTests {
    /// Every line of a poll answered true, flags 0, under the bound.
    static func expectFailedLookups(_ arguments: [String], in namespace: String, _ what: String) async throws {
        let poll = try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, Executables.appleSystemConfiguration] + arguments,
                                    environment: SystemConfigurationTests.noBuses, unsetting: SystemConfigurationTests.unset)
        defer { poll.removeOutput() }
        #expect(try await poll.exit(timeout: .seconds(60)) == 0, "\(what): \(poll.standardOutput)\(poll.standardError)")
        let lines = SystemConfigurationTests.lines(poll, "poll ")
        #expect(lines.count == 5, "\(what): \(poll.standardOutput)\(poll.standardError)")
        for line in lines {
            #expect(line.contains(" ok=true flags=0x0 "), "\(what): \(line)")
            // A lookup that failed is no lookup pending: well under the bound, even on a busy machine.
            let milliseconds = SystemConfigurationTests.field("ms", line).flatMap { Int($0) } ?? .max
            #expect(milliseconds < 900, "\(what): \(line)")
        }
    }

    @Test("NXDOMAIN and REFUSED: five calls on one target, and on five fresh targets, each true with flags 0 at once")
    func nxdomainAndRefused() async throws {
        // dnsmasq on 127.0.0.1 answers `.test` names NXDOMAIN and refuses every other name.
        let namespace = try await HostCauseNamespace()
        defer { namespace.stop() }
        for host in ["nosuchname.test", "refused.example"] {
            for fresh in [[], ["--fresh"]] {
                try await Self.expectFailedLookups(["getflags-poll", "5"] + fresh + ["--host", host], in: namespace.name,
                                                   "\(host) \(fresh)")
            }
        }
    }

    @Test("no server (the resolver's port is closed): five calls, each true with flags 0 at once")
    func noServer() async throws {
        guard geteuid() == 0 else { throw TestFailure("this test makes a network namespace and needs root: run it as root (Scripts/test does)") }
        let namespace = "rsc-closed-\(getpid())"
        let configuration = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        // 127.0.0.1 with nothing on port 53: each query is refused by the kernel at once.
        try "nameserver 127.0.0.1\n".write(toFile: configuration + "/resolv.conf", atomically: false, encoding: .utf8)
        try "127.0.0.1 localhost\n".write(toFile: configuration + "/hosts", atomically: false, encoding: .utf8)
        defer {
            (try? ChildProcess("/usr/sbin/ip", ["netns", "del", namespace]))?.waitBlocking()
            try? FileManager.default.removeItem(atPath: configuration)
            rmdir("/etc/netns")  // only when no other test's namespace still has files there
        }
        try await runToolChecked("/bin/sh", ["-c", """
            set -eu
            ip netns add "$0"
            ip -n "$0" link set lo up
            ip -n "$0" link add rv0 type veth peer name rv1
            ip -n "$0" link set rv1 up
            ip -n "$0" address add 192.0.2.2/24 dev rv0
            ip -n "$0" link set rv0 up
            ip -n "$0" route add default via 192.0.2.1
            """, namespace])
        // Back to back, and 300 ms apart as a timer polls (the in-process engine stops between calls).
        for variant in [[], ["--fresh"], ["--every", "300"], ["--fresh", "--every", "300"]] {
            try await Self.expectFailedLookups(["getflags-poll", "5"] + variant + ["--host", "example.org"], in: namespace, "no server \(variant)")
        }
    }

    @Test("refused by another host (its DNS port closed, the kernel's ICMP rate-limited): after the first failure every call, on one target or fresh ones, is true with flags 0 at once")
    func refusedByAnotherHost() async throws {
        guard geteuid() == 0 else { throw TestFailure("this test makes network namespaces and needs root: run it as root (Scripts/test does)") }
        // One namespace pair per poll: the peer's ICMP allowance (one a second) is the peer's own.
        for (index, variant) in [["--every", "0"], ["--fresh"]].enumerated() {
            let namespace = "rsc-icmp-\(getpid())-\(index)"
            let peer = namespace + "-p"
            let configuration = "/etc/netns/\(namespace)"
            try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
            // The gateway in the peer namespace is the resolver; nothing listens on its port 53, so
            // it answers each query with an ICMP port unreachable, at most one a second.
            try "nameserver 10.79.0.1\n".write(toFile: configuration + "/resolv.conf", atomically: false, encoding: .utf8)
            try "127.0.0.1 localhost\n".write(toFile: configuration + "/hosts", atomically: false, encoding: .utf8)
            defer {
                for name in [namespace, peer] { (try? ChildProcess("/usr/sbin/ip", ["netns", "del", name]))?.waitBlocking() }
                try? FileManager.default.removeItem(atPath: configuration)
                rmdir("/etc/netns")  // only when no other test's namespace still has files there
            }
            try await runToolChecked("/bin/sh", ["-c", """
                set -eu
                ip netns add "$0"
                ip netns add "$1"
                ip -n "$0" link set lo up
                ip -n "$0" link add eth7 type veth peer name p7 netns "$1"
                ip -n "$1" address add 10.79.0.1/24 dev p7
                ip -n "$1" link set p7 up
                ip -n "$0" address add 10.79.0.2/24 dev eth7
                ip -n "$0" link set eth7 up
                ip -n "$0" route add default via 10.79.0.1
                """, namespace, peer])
            try await Self.expectFailedLookups(["getflags-poll", "5"] + variant + ["--host", "nosuch.example"], in: namespace,
                                               "refused by another host \(variant)")
        }
    }
}
