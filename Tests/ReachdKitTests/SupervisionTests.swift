import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachd's system instance on a machine without systemd (issue 38): the init script
/// (/etc/init.d/reachd, start-stop-daemon) and BusyBox init's respawn line, as `sudo Scripts/install`
/// puts them in place, run on a scratch machine (Scripts/harness/scratch-machine) with a system
/// bus of its own and /run a tmpfs of its own (the pid file). Before each supervised start a reachd
/// runs as the system bus's launch helper would have started it for a client (Exec= of the
/// activation file: `reachd --system`, as user reachd): the supervised one takes the name over
/// (--replace) instead of exiting 2, and the other hands it over and exits 0.
@Suite("Supervision without systemd: the init script and BusyBox init", .serialized, .timeLimit(.minutes(25)))
struct SupervisionTests {
    /// The steps every script here starts with, as `sh -c` on the machine (`$0` Scripts/install,
    /// `$1` the machine's folder): /run and a system bus of the machine's own
    /// (DBUS_SYSTEM_BUS_ADDRESS, which the init script's dbus-send and reachd follow), helpers,
    /// and an activated reachd serving (`ACTIVATED=PID`).
    static let prologue = #"""
        set -u
        install="$0" here="$1"
        # User reachd reaches the bus's socket in it, whatever the umask made it.
        chmod 0755 "$here"
        # The pid file goes in /run: this machine's own, not the host's.
        mount -t tmpfs -o mode=0755 tmpfs /run
        eval "$("$(dirname "$install")/harness/private-bus" --dir "$here/bus" system)"
        export DBUS_SYSTEM_BUS_ADDRESS="$ADDRESS"
        # owner: the pid of the process owning reachd's name (as this namespace sees it), or nothing.
        owner() {
            dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.GetConnectionUnixProcessID string:io.reachd.Reachability1 2>/dev/null \
                | sed -n 's/.*uint32 \([0-9]*\).*/\1/p'
        }
        # wait_owner NOT: until a process other than NOT owns the name (30 s); prints its pid.
        wait_owner() {
            tries=0
            while [ "$tries" -lt 300 ]; do
                found="$(owner)"
                if [ -n "$found" ] && [ "$found" != "$1" ]; then echo "$found"; return 0; fi
                sleep 0.1
                tries=$((tries + 1))
            done
            return 1
        }
        # gone PID: whether PID has ended (a zombie not yet reaped counts: it runs nothing).
        gone() {
            state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)"
            [ -z "$state" ] || [ "$state" = Z ]
        }
        # wait_gone PID: until PID has ended (30 s).
        wait_gone() {
            tries=0
            while ! gone "$1"; do
                tries=$((tries + 1))
                [ "$tries" -lt 300 ] || return 1
                sleep 0.1
            done
        }
        # As the system bus's launch helper starts it on a client's first call.
        setpriv --reuid=reachd --regid=reachd --clear-groups /usr/local/bin/reachd --system 2> "$here/activated.log" &
        activated=$!
        if [ "$(wait_owner none)" != "$activated" ]; then
            echo "the activated reachd did not serve:" >&2; cat "$here/activated.log" >&2; exit 1
        fi
        echo "ACTIVATED=$activated"
        # activated_ended: waits for the activated reachd to end; prints ACTIVATED_EXIT=its exit status.
        activated_ended() {
            if wait_gone "$activated"; then
                wait "$activated"
                echo "ACTIVATED_EXIT=$?"
            else
                echo "ACTIVATED_EXIT=running"
            fi
        }
        """#

    /// The machine, after `sudo Scripts/install` (the default prefix, /usr/local) on it.
    static func installedMachine(_ name: String) async throws -> ScratchMachine {
        guard geteuid() == 0 else {
            throw TestFailure("this test installs as root (on a scratch machine: mount and PID namespaces): run the tests as root (Scripts/test does)")
        }
        let machine = try await ScratchMachine.make(name)
        let install = try await machine.run(ScratchInstall.script)
        guard install.succeeded else {
            machine.remove()
            throw TestFailure("Scripts/install failed: \(install.transcript)")
        }
        return machine
    }

    /// The `KEY=VALUE` pairs a script printed (several to a line, a value running to the next
    /// `KEY=`), by key (the last of each).
    static func values(_ output: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            var key: String?
            for word in line.split(separator: " ", omittingEmptySubsequences: false) {
                if let equals = word.firstIndex(of: "="), !word[..<equals].isEmpty,
                   word[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" }) {
                    key = String(word[..<equals])
                    values[key!] = String(word[word.index(after: equals)...])
                } else if let key {
                    values[key, default: ""] += " " + word
                }
            }
        }
        return values
    }

    @Test("/etc/init.d/reachd takes the name over from an activated reachd on start, reports status as LSB says (running, dead with a pid file after kill -9, not running), starts again, restarts, stops, reads REACHD_OPTS from /etc/default/reachd, and says so when reachd cannot start")
    func initScript() async throws {
        let machine = try await Self.installedMachine("sysvinit")
        defer { machine.remove() }
        let script = Self.prologue + #"""

            init=/etc/init.d/reachd
            [ -x "$init" ] || { echo "no $init" >&2; exit 1; }
            "$init" start > "$here/start.log" 2>&1; echo "START=$?"
            supervised="$(cat /run/reachd.pid)"
            echo "SUPERVISED=$supervised"
            echo "OWNER=$(owner)"
            echo "SUPERVISED_USER=$(stat -c %U "/proc/$supervised")"
            activated_ended
            "$init" status > "$here/status.log" 2>&1; echo "STATUS_RUNNING=$?"; cat "$here/status.log"
            "$init" start > /dev/null 2>&1; echo "START_AGAIN=$? $(cat /run/reachd.pid)"

            kill -KILL "$supervised"
            wait_gone "$supervised" || echo "KILLED=still running"
            "$init" status > /dev/null 2>&1; echo "STATUS_KILLED=$?"
            "$init" start > /dev/null 2>&1; echo "START_AFTER_KILL=$?"
            second="$(cat /run/reachd.pid)"
            echo "SECOND=$second OWNER_AFTER_KILL=$(owner)"

            "$init" restart > /dev/null 2>&1; echo "RESTART=$?"
            third="$(cat /run/reachd.pid)"
            echo "THIRD=$third OWNER_AFTER_RESTART=$(owner) SECOND_GONE=$(gone "$second" && echo yes)"
            "$init" force-reload > /dev/null 2>&1; echo "FORCE_RELOAD=$?"
            fourth="$(cat /run/reachd.pid)"
            echo "FOURTH=$fourth OWNER_AFTER_FORCE_RELOAD=$(owner) THIRD_GONE=$(gone "$third" && echo yes)"

            "$init" stop > /dev/null 2>&1; echo "STOP=$?"
            echo "FOURTH_GONE=$(gone "$fourth" && echo yes) OWNER_AFTER_STOP=$(owner) PIDFILE_AFTER_STOP=$([ -e /run/reachd.pid ] && echo yes || echo no)"
            "$init" status > /dev/null 2>&1; echo "STATUS_STOPPED=$?"
            "$init" stop > /dev/null 2>&1; echo "STOP_AGAIN=$?"

            # The administrator's options, from /etc/default/reachd.
            echo 'REACHD_OPTS="--settle-ms 250"' > /etc/default/reachd
            "$init" start > /dev/null 2>&1; echo "START_WITH_OPTIONS=$?"
            echo "COMMAND_LINE=$(tr '\0' ' ' < "/proc/$(cat /run/reachd.pid)/cmdline")"
            "$init" stop > /dev/null 2>&1
            # A value reachd refuses (exit 64 at once): the start fails, and says where to look.
            echo 'REACHD_OPTS="--settle-ms soon"' > /etc/default/reachd
            "$init" start > "$here/bad.log" 2>&1; echo "START_REFUSED=$?"; cat "$here/bad.log"
            "$init" status > /dev/null 2>&1; echo "STATUS_REFUSED=$?"
            rm -f /etc/default/reachd
            "$init" frobnicate 2> "$here/usage.log"; echo "USAGE=$?"; cat "$here/usage.log"
            kill "$PID"
            """#
        let result = try await machine.shell(script)
        let values = Self.values(result.standardOutput)
        let context = "\(result.transcript)"
        let supervised = try #require(values["SUPERVISED"].flatMap { Int($0) }, "\(context)")
        #expect(values["START"] == "0" && values["OWNER"] == String(supervised) && values["SUPERVISED_USER"] == "reachd", "\(context)")
        // The activated reachd handed the name over and ended cleanly, instead of the new one exiting 2.
        #expect(values["ACTIVATED_EXIT"] == "0", "\(context)")
        #expect(values["STATUS_RUNNING"] == "0" && result.standardOutput.contains("reachd is running (pid \(supervised))"), "\(context)")
        #expect(values["START_AGAIN"] == "0 \(supervised)", "a second start leaves the running one: \(context)")
        // LSB: 1 is "dead, and the pid file exists".
        #expect(values["KILLED"] == nil && values["STATUS_KILLED"] == "1", "\(context)")
        let second = values["SECOND"] ?? "?"
        #expect(values["START_AFTER_KILL"] == "0" && second != String(supervised) && values["OWNER_AFTER_KILL"] == second, "\(context)")
        #expect(values["RESTART"] == "0" && values["THIRD"] != second && values["OWNER_AFTER_RESTART"] == values["THIRD"]
                && values["SECOND_GONE"] == "yes", "\(context)")
        #expect(values["FORCE_RELOAD"] == "0" && values["FOURTH"] != values["THIRD"] && values["OWNER_AFTER_FORCE_RELOAD"] == values["FOURTH"]
                && values["THIRD_GONE"] == "yes", "\(context)")
        #expect(values["STOP"] == "0" && values["FOURTH_GONE"] == "yes" && values["OWNER_AFTER_STOP"] == ""
                && values["PIDFILE_AFTER_STOP"] == "no", "\(context)")
        // LSB: 3 is "not running".
        #expect(values["STATUS_STOPPED"] == "3" && values["STOP_AGAIN"] == "0", "\(context)")
        #expect(values["START_WITH_OPTIONS"] == "0"
                && values["COMMAND_LINE"]?.trimmingCharacters(in: .whitespaces) == "/usr/local/bin/reachd --system --replace --settle-ms 250", "\(context)")
        #expect(values["START_REFUSED"] == "1" && result.standardOutput.contains("reachd did not start"), "\(context)")
        #expect(values["STATUS_REFUSED"] != "0", "\(context)")
        #expect(values["USAGE"] == "3" && result.standardOutput.contains("{start|stop|restart|force-reload|status}"), "\(context)")
    }

    /// BusyBox init, the real one (Debian's busybox), as PID 1 of a PID namespace of its own on the
    /// machine, with the installed inittab line as its whole /etc/inittab: once with the line as
    /// shipped (/sbin/start-stop-daemon, dpkg's here) and once with BusyBox's own applet, as a
    /// BusyBox-only image has it.
    @Test("BusyBox init runs the installed inittab line: reachd as user reachd, init's own child, takes the name over from an activated reachd, comes back after kill -9, and does not loop",
          arguments: ["/sbin/start-stop-daemon", "/bin/busybox start-stop-daemon"])
    func busyboxInittab(startStopDaemon: String) async throws {
        try await runToolChecked("/bin/sh", ["-c", "command -v busybox >/dev/null || { echo 'no busybox: apt-get install busybox (Scripts/test installs it)' >&2; exit 1; }"])
        let machine = try await Self.installedMachine("inittab")
        defer { machine.remove() }
        let script = Self.prologue + #"""

            line="$(grep '^::respawn:' /usr/local/share/reachd/inittab)"
            [ -n "$line" ] || { echo "no respawn line in /usr/local/share/reachd/inittab" >&2; exit 1; }
            printf '%s\n' "$line" | sed "s|/sbin/start-stop-daemon|$START_STOP_DAEMON|" > /etc/inittab
            echo "INITTAB=$(cat /etc/inittab)"
            # BusyBox init must be PID 1: of a PID namespace (and /proc) of its own, killed with unshare.
            unshare --pid --fork --kill-child --mount-proc busybox init < /dev/null > "$here/console" 2>&1 &
            unshare=$!
            tries=0 init=""
            while [ -z "$init" ] && [ "$tries" -lt 50 ]; do
                sleep 0.1
                init="$(tr -d ' ' < "/proc/$unshare/task/$unshare/children")"
                tries=$((tries + 1))
            done
            echo "INIT=$init"
            # inner PID: the pid that PID's own namespace gives it (what the pid file holds).
            inner() { sed -n 's/^NSpid:.*[[:space:]]\([0-9]*\)$/\1/p' "/proc/$1/status"; }
            parent() { sed -n 's/^PPid:[[:space:]]*\([0-9]*\)$/\1/p' "/proc/$1/status"; }
            first="$(wait_owner "$activated")" || { echo "no supervised reachd took the name:" >&2; cat "$here/console" >&2; exit 1; }
            echo "FIRST=$first FIRST_PARENT=$(parent "$first") FIRST_USER=$(stat -c %U "/proc/$first")"
            echo "FIRST_INNER=$(inner "$first") PIDFILE=$(cat /run/reachd.pid)"
            activated_ended
            # The init script reads the same pid file, in init's namespace.
            nsenter --target "$init" --pid --mount /etc/init.d/reachd status > "$here/status.log" 2>&1; echo "STATUS=$?"

            kill -KILL "$first"
            second="$(wait_owner "$first")" || { echo "reachd did not come back:" >&2; cat "$here/console" >&2; exit 1; }
            echo "SECOND=$second SECOND_PARENT=$(parent "$second") SECOND_INNER=$(inner "$second") PIDFILE_AFTER_KILL=$(cat /run/reachd.pid)"
            # No loop: the same reachd still serves a while later.
            sleep 3
            echo "OWNER_LATER=$(owner)"

            kill -KILL "$unshare"
            wait "$unshare" 2>/dev/null
            wait_gone "$second" && echo "SECOND_GONE=yes"
            kill "$PID"
            """#
        let result = try await machine.shell(script, environment: ["START_STOP_DAEMON": startStopDaemon])
        let values = Self.values(result.standardOutput)
        let context = "\(result.transcript)\nconsole: \((try? String(contentsOfFile: "\(machine.folder)/console", encoding: .utf8)) ?? "")"
        #expect(result.succeeded, "\(context)")
        let init_ = try #require(values["INIT"], "\(context)")
        let first = try #require(values["FIRST"], "\(context)")
        // reachd itself is init's child (start-stop-daemon exec'd it, no fork): what init respawns.
        #expect(values["FIRST_PARENT"] == init_ && values["FIRST_USER"] == "reachd", "\(context)")
        #expect(values["FIRST_INNER"] == values["PIDFILE"], "\(context)")
        #expect(values["ACTIVATED_EXIT"] == "0", "the activated reachd handed the name over: \(context)")
        #expect(values["STATUS"] == "0", "\(context)\nstatus: \((try? String(contentsOfFile: "\(machine.folder)/status.log", encoding: .utf8)) ?? "")")
        let second = try #require(values["SECOND"], "\(context)")
        #expect(second != first && values["SECOND_PARENT"] == init_ && values["SECOND_INNER"] == values["PIDFILE_AFTER_KILL"], "\(context)")
        #expect(values["OWNER_LATER"] == second, "respawned once, not looping: \(context)")
        #expect(values["SECOND_GONE"] == "yes", "\(context)")
    }
}
