import Foundation
import ReachdTestSupport

/// `sudo Scripts/install` (root, no DESTDIR, the default prefix) on a machine of its own:
/// `Scripts/harness/scratch-machine`, whose /etc, /usr/local and GLib's module folder are this
/// folder's copies, with no system bus or systemd, and whose processes (a system instance the test
/// starts) are its own and end with each run. The machine's files, users and processes are never
/// touched, whoever else runs a reachd or has a user reachd on it.
struct ScratchMachine {
    static let harness = Executables.packageRoot.appendingPathComponent("Scripts/harness/scratch-machine").path

    /// The machine's folder: etc, usr-local, gio-modules (removed by `remove`).
    let folder: String

    var etc: String { "\(folder)/etc" }
    var usrLocal: String { "\(folder)/usr-local" }
    var gioModules: String { "\(folder)/gio-modules" }

    /// A copy of this machine (the tests' view of it) without a user reachd, so that an install
    /// must create one.
    static func make(_ name: String) async throws -> ScratchMachine {
        let machine = ScratchMachine(folder: try ScratchInstall.makeDestination(name))
        try await machine.run("/bin/true")
        try await runToolChecked("/bin/sed", ["-i", "/^reachd:/d"] + ["passwd", "group", "shadow", "gshadow"].map { "\(machine.etc)/\($0)" })
        return machine
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// `command arguments…` as root on this machine; its result, whatever its status.
    @discardableResult
    func run(_ command: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> ToolResult {
        try await runTool(Self.harness, [folder, "/usr/bin/env", "-u", "DESTDIR", "-u", "PREFIX", "-u", "GIOMODULEDIR", command] + arguments,
                          environment: environment.merging(["REACHD_SCRATCH_PATH": PackageTests.scratchPath]) { $1 },
                          timeout: .seconds(1200))
    }

    /// A shell script run on this machine as `sh -c SCRIPT Scripts/install FOLDER`: `$0` is the
    /// install script, `$1` this machine's folder (for a second machine's folder, or a bus socket).
    @discardableResult
    func shell(_ script: String, environment: [String: String] = [:]) async throws -> ToolResult {
        try await run("/bin/sh", ["-c", script, ScratchInstall.script, folder], environment: environment)
    }

    /// Whether the machine's `file` (passwd, group, shadow, gshadow) has an entry for reachd.
    func hasReachd(in file: String) throws -> Bool {
        try String(contentsOfFile: "\(etc)/\(file)", encoding: .utf8).split(separator: "\n").contains { $0.hasPrefix("reachd:") }
    }

    /// The suite's real install's second step, a system instance running and then --uninstall, as a
    /// script for `shell`: on a private system bus in the machine's folder, `/usr/local/bin/reachd
    /// --system` as user reachd until it serves (`INSTANCE=PID`), then `Scripts/install --uninstall`,
    /// then what became of the instance (`INSTANCE_STATE=gone`, or Z once stopped and not yet
    /// reaped, or its running state).
    static let uninstallWithARunningSystemInstance = #"""
        set -eu
        install="$0" here="$1"
        # User reachd reaches the bus's socket in it, whatever the umask made it.
        chmod 0755 "$here"
        eval "$("$(dirname "$install")/harness/private-bus" --dir "$here/bus" system)"
        DBUS_SYSTEM_BUS_ADDRESS="$ADDRESS" setpriv --reuid=reachd --regid=reachd --clear-groups \
            /usr/local/bin/reachd --system --no-config 2> "$here/instance.log" &
        instance=$!
        tries=0
        until dbus-send --bus="$ADDRESS" --print-reply --dest=io.reachd.Reachability1 /io/reachd/Reachability1 \
            org.freedesktop.DBus.Peer.Ping > /dev/null 2>&1; do
            tries=$((tries + 1))
            if [ "$tries" -ge 300 ]; then echo "the system instance did not serve:" >&2; cat "$here/instance.log" >&2; exit 1; fi
            sleep 0.1
        done
        echo "INSTANCE=$instance"
        "$install" --uninstall
        state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$instance/status" 2> /dev/null || true)"
        echo "INSTANCE_STATE=${state:-gone}"
        kill "$PID"
        """#
}
