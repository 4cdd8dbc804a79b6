import Foundation
import Glibc
import Synchronization
import ReachdTestSupport

/// A client and a peer network namespace joined by a veth, made by
/// `Scripts/harness/nm-netns up`: dnsmasq in the peer answering
/// `peer.reachd.test`, a private system bus and a real NetworkManager in the
/// client. The client namespace resolves names with that dnsmasq only
/// (`/etc/netns/CLIENT/resolv.conf`, which `ip netns exec` binds over
/// `/etc/resolv.conf`), so no test ever asks the machine's own resolver.
final class NetworkNamespaces: Sendable {
    /// The folder nm-netns keeps its logs, sockets and `env` in.
    let directory: String
    let systemBusAddress: String
    let clientNamespace: String
    let peerNamespace: String
    let clientInterface: String
    let peerInterface: String
    let clientAddress: String
    let peerAddress: String
    /// The name dnsmasq answers with `peerAddress`.
    let dnsName: String

    private var resolverDirectory: String { "/etc/netns/\(clientNamespace)" }
    /// Tests run in parallel: one makes `/etc/netns` while another removes it.
    private static let resolverFiles = Mutex(())

    private init(directory: String, environment: [String: String]) throws {
        func value(_ key: String) throws -> String {
            guard let value = environment[key], !value.isEmpty else {
                throw TestFailure("nm-netns wrote no \(key) in \(directory)/env")
            }
            return value
        }
        self.directory = directory
        systemBusAddress = try value("SYSTEM_BUS_ADDRESS")
        clientNamespace = try value("CLIENT_NETNS")
        peerNamespace = try value("PEER_NETNS")
        clientInterface = try value("CLIENT_IF")
        peerInterface = try value("PEER_IF")
        clientAddress = try value("CLIENT_ADDR")
        peerAddress = try value("PEER_ADDR")
        dnsName = try value("DNS_NAME")
    }

    /// `Scripts/harness/nm-netns`, found from this file's real location (the
    /// package may be built through symlinks to the checkout).
    static let harness: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let source = realpath(#filePath, &buffer) != nil
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : #filePath
        // …/Tests/ReachdHostMonitorTests/Support/NetworkNamespaces.swift → the checkout.
        var root = URL(fileURLWithPath: source)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Scripts/harness/nm-netns").path
    }()

    /// Namespaces need root and NetworkManager; say so loudly instead of skipping quietly.
    static func requireRoot() throws {
        try requireNetworkNamespaceHarness(harness)
    }

    static func up() async throws -> NetworkNamespaces {
        try requireRoot()
        var template = Array("/tmp/hm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        let result = try await runTool(harness, ["up", directory], timeout: .seconds(90))
        guard result.succeeded else {
            // A failed up takes itself down; only the folder is left.
            try? FileManager.default.removeItem(atPath: directory)
            throw TestFailure("nm-netns up failed: \(result.transcript)")
        }
        let namespaces: NetworkNamespaces
        do {
            let text = try String(contentsOfFile: directory + "/env", encoding: .utf8)
            var environment: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            namespaces = try NetworkNamespaces(directory: directory, environment: environment)
            try Self.resolverFiles.withLock { _ in
                try FileManager.default.createDirectory(atPath: namespaces.resolverDirectory, withIntermediateDirectories: true)
                try "nameserver \(namespaces.peerAddress)\n".write(
                    toFile: namespaces.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
            }
        } catch {
            _ = try? await runTool(harness, ["down", directory])
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        return namespaces
    }

    /// Kills everything in both namespaces, deletes them, and removes the
    /// resolver file and the folder. Safe to call twice.
    func down() async {
        Self.resolverFiles.withLock { _ in
            try? FileManager.default.removeItem(atPath: resolverDirectory)
            rmdir("/etc/netns")  // only when no other test's namespace still has a file there
        }
        let result = try? await runTool(Self.harness, ["down", directory], timeout: .seconds(60))
        if let result, !result.succeeded {
            print("nm-netns down \(directory) failed: \(result.transcript)")
            return  // keep the folder: it names what is left
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `nm-netns COMMAND DIR`: kill-nm, start-nm, carrier-down, …
    func harness(_ command: String) async throws {
        try await runToolChecked(Self.harness, [command, directory], timeout: .seconds(60))
    }

    /// `ip -n CLIENT ARGUMENTS…`, failing on a non-zero exit.
    @discardableResult
    func inClient(_ arguments: String...) async throws -> ToolResult {
        try await runToolChecked("ip", ["-n", clientNamespace] + arguments)
    }

    func deleteDefaultRoute() async throws {
        try await inClient("route", "del", "default")
    }

    /// The default route as NetworkManager's profile makes it (gateway = the peer).
    func restoreDefaultRoute() async throws {
        try await inClient("route", "add", "default", "via", peerAddress, "dev", clientInterface, "proto", "static", "metric", "100")
    }

    /// What dnsmasq in the peer namespace was asked, from its log.
    var dnsQueries: String {
        (try? String(contentsOfFile: directory + "/dnsmasq.log", encoding: .utf8)) ?? ""
    }

    var networkManagerLog: String {
        (try? String(contentsOfFile: directory + "/nm.log", encoding: .utf8)) ?? ""
    }
}

/// Runs `body` with fresh namespaces and takes them down on every path out.
func withNetworkNamespaces<T>(_ body: (NetworkNamespaces) async throws -> T) async throws -> T {
    let namespaces = try await NetworkNamespaces.up()
    do {
        let result = try await body(namespaces)
        await namespaces.down()
        return result
    } catch {
        await namespaces.down()
        throw error
    }
}
