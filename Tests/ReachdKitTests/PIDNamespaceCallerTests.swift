import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A caller reachd cannot see (issue 38, item 6): a bus and its reachd in a PID namespace of their
/// own, as in a scratch machine or a container that runs its own bus, and a caller outside it that
/// reaches the bus's socket. The bus gives that caller's process ID as 0 (its kernel cannot name a
/// process outside its namespace), so reachd cannot tell which network namespace the caller is in,
/// nor whether it is a sandboxed app. reachd refuses with `io.reachd.Error.UnknownNetworkNamespace`
/// and a sentence that says so (before: NotAllowed, "cannot open /proc/0/root"), and reachctl
/// answers in its own process, as for any reachd that cannot answer for it (before: exit 4).
@Suite("a caller in a PID namespace reachd cannot see", .timeLimit(.minutes(2)))
struct PIDNamespaceCallerTests {
    @Test("reachd says it cannot see the caller, with its own error name; reachctl answers in-process instead of exiting 4")
    func invisibleCallerIsToldWhyAndReachctlFallsBack() async throws {
        guard geteuid() == 0 else { throw TestFailure("a PID namespace needs root: run the tests as root") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-pidns-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = folder + "/bus", address = "unix:path=\(folder)/bus"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        // The bus and reachd in a new PID namespace (with its own /proc), the namespace's first
        // process a shell that waits for them; everything in it dies with unshare (--kill-child).
        // reachd keeps libdbus's fatal warnings; the bus, as every test's bus, does not: with the
        // whole suite's buses and GLib apps at once, the machine's 128 inotify instances can run
        // out, which dbus-daemon only warns about (it then does without watching its configuration).
        let script = """
            folder=$1; shift
            env -u DBUS_FATAL_WARNINGS dbus-daemon --nofork --config-file="$folder/bus.conf" &
            while [ ! -S "$folder/bus" ]; do sleep 0.05; done
            DBUS_SESSION_BUS_ADDRESS="unix:path=$folder/bus" "$@" &
            wait
            """
        let namespace = try ChildProcess("/usr/bin/unshare", ["--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", script, "sh",
                                                             folder, Executables.reachd, "--no-config", "--log-target", "stderr",
                                                             "--system-bus-address", absentSystemBusAddress()],
                                         keepFatalWarnings: true)
        defer { namespace.stop(SIGKILL); namespace.removeOutput() }
        try await eventually(timeout: .seconds(30), "reachd serves in the PID namespace:\n\(namespace.standardError)") {
            if namespace.poll() != nil { throw TestFailure("the namespace ended: \(namespace.standardError)") }
            guard access(socket, F_OK) == 0 else { return false }
            let owner = try await runTool("/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                                                 "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                                                                 "string:io.reachd.Reachability1"])
            return owner.standardOutput.contains("boolean true")
        }

        // The bus cannot name this process (pid 0): what reachd answers it.
        let call = try await runTool("/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--dest=io.reachd.Reachability1",
                                                            "/io/reachd/Reachability1", "io.reachd.Reachability1.GetStatus"])
        #expect(!call.succeeded, "\(call.transcript)")
        #expect(call.standardError.contains("Error io.reachd.Error.UnknownNetworkNamespace: this program runs in a PID namespace "
                                            + "that reachd's cannot see into (the bus gives its process ID as 0), so reachd cannot tell "
                                            + "which network namespace it is in"), "\(call.transcript)")
        #expect(call.standardError.contains("REACHD_SERVICE=in-process") && !call.standardError.contains("/proc/0"), "\(call.transcript)")
        #expect(namespace.standardError.contains("so reachd cannot tell which network namespace it is in"), "reachd logs why:\n\(namespace.standardError)")

        // reachctl passes over that reachd, as over any that cannot answer for it, and answers itself.
        let environment = ["DBUS_SESSION_BUS_ADDRESS": address, "DBUS_SYSTEM_BUS_ADDRESS": absentSystemBusAddress(), "LANG": "C"]
        let status = try await runTool(Executables.reachctl, ["status", "--json"], environment: environment)
        #expect(status.status == 0 && status.standardOutput.contains("\"service\":\"in-process\""), "\(status.transcript)")
        let host = try await runTool(Executables.reachctl, ["host", "127.0.0.1"], environment: environment)
        #expect(host.status == 0 && host.standardOutput.contains("answered by: in this process"), "\(host.transcript)")
        // Chosen by name, it is an error that says why, never a silent answer from elsewhere.
        let chosen = try await runTool(Executables.reachctl, ["status", "--service", "session"], environment: environment)
        #expect(chosen.status != 0 && chosen.standardError.contains("cannot tell which network namespace"), "\(chosen.transcript)")
        #expect(namespace.poll() == nil, "reachd and its bus still run: \(namespace.standardError)")
    }
}
