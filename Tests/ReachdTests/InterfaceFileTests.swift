import Foundation
import ReachdCore
import ReachdTestSupport
import Testing

/// The interface files as developers get them. `Scripts/install` (and so the Debian package,
/// which stages with it) copies dbus/*.xml unchanged to $PREFIX/share/dbus-1/interfaces: the
/// files in the repository are the installed files, and these tests read them in place.
/// Each must be XML that a strict parser accepts, and the generators developers run on them
/// must make working code: gdbus-codegen a C client that calls reachd, qdbusxml2cpp a Qt proxy
/// with every method. (Issue 22: a `--` in a comment made the main file unreadable to both,
/// and qdbusxml2cpp still exited 0, with a proxy that had no methods.)
@Suite("the installed interface files are XML that code generators read", .timeLimit(.minutes(3)))
struct InterfaceFileTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dbus")

    /// Every XML file in dbus/, the ones `Scripts/install` installs.
    static func interfaceFiles() throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".xml") }.sorted().map { directory.appendingPathComponent($0).path }
        guard files.contains(where: { $0.hasSuffix("/io.reachd.Reachability1.xml") }),
              files.contains(where: { $0.hasSuffix("/io.reachd.Reachability1.Monitor.xml") }) else {
            throw TestFailure("dbus/ lacks the interface files: \(files)")
        }
        return files
    }

    @Test("expat reads every interface file, and so does the contract tests' parser, finding the same members")
    func everyFileIsWellFormed() async throws {
        for path in try Self.interfaceFiles() {
            let expat = try await ExpatReading.file(path)
            // expat's message names the file, the line and the column.
            #expect(expat.isWellFormed, "\(expat.error)")
            guard expat.isWellFormed else { continue }
            #expect(!expat.members.isEmpty, "\(path) declares no members: \(expat.result.transcript)")
            let ours = try IntrospectionDocument(xml: String(contentsOfFile: path, encoding: .utf8))
            var members: Set<ExpatReading.Member> = []
            for (interface, contract) in ours.interfaces {
                for name in contract.methods.keys { members.insert(.init(kind: "method", interface: interface, name: name)) }
                for name in contract.signals.keys { members.insert(.init(kind: "signal", interface: interface, name: name)) }
                for name in contract.properties.keys { members.insert(.init(kind: "property", interface: interface, name: name)) }
            }
            #expect(members == Set(expat.members), "\(path)")
        }
    }

    @Test("each interface file's header names the interface version reachd serves")
    func headerNamesCurrentVersion() throws {
        for path in try Self.interfaceFiles() {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let versions = text.matches(of: /interface version (\d+)/).map { String($0.output.1) }
            #expect(versions.first == "\(PublishedReachability.interfaceVersion)", "\(path) says \(versions)")
        }
    }

    @Test("gdbus-codegen makes a C client from the installed files that gets GetStatus's answer from reachd")
    func gdbusCodegenClientCallsGetStatus() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let files = try Self.interfaceFiles()
        let codegen = try await runUnsettingPython(
            "gdbus-codegen",
            ["--interface-prefix", "io.reachd.", "--c-namespace", "Reachd", "--generate-c-code", "reachd-generated",
             "--output-directory", work.path] + files)
        try #require(codegen.succeeded, "\(codegen.transcript)")
        try Self.client.write(toFile: work.path + "/client.c", atomically: true, encoding: .utf8)
        let glib = try await runToolChecked("pkg-config", ["--cflags", "--libs", "gio-2.0"])
        let compile = try await runTool(
            "cc", ["-Wall", "-o", work.path + "/client", work.path + "/client.c", work.path + "/reachd-generated.c"]
                + glib.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init),
            timeout: .seconds(120))
        try #require(compile.succeeded, "\(compile.transcript)")

        // A modem connection: Status 1 and Flags 0x40002 (Reachable | IsWWAN) differ from each
        // other and use a high bit, so an answer read in the wrong order or width shows.
        let expected = NetworkManagerMockTests.gsm
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let session = try PrivateBus(.session)
        defer { session.stop() }
        let mock = try await NetworkManagerMock(on: system)
        defer { mock.stop() }
        try await mock.addModem()
        try await mock.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/gsm0")
        try await mock.setManager("Connectivity", "u", "4")
        try await mock.setState(70)
        // The mock's modem is not a link in reachd's namespace: NetworkManager's word, not cross-checked.
        try await withReachd(session: session, systemBus: system.address, arguments: ["--no-override"]) { _ in
            var gdbus = try await session.getStatus()
            try await eventually("reachd publishes the modem:\n\(gdbus.transcript)") {
                gdbus = try await session.getStatus()
                return gdbus.standardOutput == "(\(expected.status), uint32 \(expected.flags))\n"
            }
            let busctl = try await session.busctl("call", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface,
                                                  "GetStatus")
            #expect(busctl.standardOutput == "iu \(expected.status) \(expected.flags)\n", "\(busctl.transcript)")
            let client = try await runTool(work.path + "/client", [], environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
            #expect(client.succeeded, "\(client.transcript)")
            // STATUS FLAGS from GetStatus, then InterfaceVersion from the generated property getter.
            #expect(client.standardOutput == "\(expected.status) \(expected.flags) \(PublishedReachability.interfaceVersion)\n",
                    "the generated client: \(client.transcript)\ngdbus call: \(gdbus.transcript)\nbusctl call: \(busctl.transcript)")
        }
    }

    /// A GLib program as a developer would write it against the generated proxy.
    static let client = """
        #include "reachd-generated.h"
        #include <stdio.h>

        int main(void) {
            g_autoptr(GError) error = NULL;
            ReachdReachability1 *proxy = reachd_reachability1_proxy_new_for_bus_sync(
                G_BUS_TYPE_SESSION, G_DBUS_PROXY_FLAGS_NONE, "io.reachd.Reachability1", "/io/reachd/Reachability1", NULL, &error);
            if (proxy == NULL) {
                fprintf(stderr, "no proxy: %s\\n", error->message);
                return 1;
            }
            gint status = 0;
            guint flags = 0;
            gboolean answered = reachd_reachability1_call_get_status_sync(proxy, &status, &flags, NULL, &error);
            guint version = reachd_reachability1_get_interface_version(proxy);
            g_clear_object(&proxy);
            if (!answered) {
                fprintf(stderr, "GetStatus: %s\\n", error->message);
                return 1;
            }
            printf("%d %u %u\\n", status, flags, version);
            return 0;
        }

        """

    /// Checking the generated header, not compiling it: compiling a Qt proxy needs qtbase5-dev,
    /// which brings Qt's GUI libraries and the GL, Vulkan and X11 headers (25 packages) for one
    /// test. What went wrong before shows in the header: no methods, or an exit for an unknown type.
    @Test("qdbusxml2cpp makes a Qt proxy from each installed file that declares every method, signal and property")
    func qdbusxml2cppProxyHasEveryMember() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        for path in try Self.interfaceFiles() {
            let expat = try await ExpatReading.file(path)
            try #require(expat.isWellFormed, "\(expat.error)")
            let base = work.path + "/" + URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            let generate = try await runTool("qdbusxml2cpp", ["-p", "\(base).h:\(base).cpp", path])
            #expect(generate.succeeded, "\(path): \(generate.transcript)")
            let header = (try? String(contentsOfFile: base + ".h", encoding: .utf8)) ?? ""
            for interface in expat.interfaces {
                // The proxy class of this interface: from its comment to the next one's.
                guard let start = header.range(of: "Proxy class for interface \(interface)\n") else {
                    Issue.record("\(path): no proxy class for \(interface) in\n\(header)")
                    continue
                }
                let rest = header[start.upperBound...]
                let proxy = rest.range(of: "Proxy class for interface ").map { rest[..<$0.lowerBound] } ?? rest
                for member in expat.members where member.interface == interface {
                    let declaration = switch member.kind {
                    case "method": "> \(member.name)("
                    case "signal": "void \(member.name)("
                    default: " \(member.name) READ "
                    }
                    #expect(proxy.contains(declaration), "\(path): the proxy lacks \(member) (\"\(declaration)\") in\n\(proxy)")
                }
            }
        }
    }
}

/// A fresh directory under the temporary directory, for one test's generated files.
private struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-interface-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// `runTool` for a Python program (gdbus-codegen is one, run by Debian's python3): a
/// PYTHONPATH or PYTHONHOME meant for another Python must not leak in.
private func runUnsettingPython(_ executable: String, _ arguments: [String]) async throws -> ToolResult {
    let child = try ChildProcess(executable, arguments, unsetting: ["PYTHONPATH", "PYTHONHOME"])
    defer { child.removeOutput() }
    let status = try await child.exit(timeout: .seconds(60))
    return ToolResult(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
}
