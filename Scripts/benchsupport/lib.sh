# Shared by Scripts/bench and Scripts/reliability: build the fixtures, start and
# stop private buses, the NetworkManager stand-in and reachd. Sourced, not run.
# Everything started is recorded in BS_PIDS / BS_DIRS and stopped by bs_cleanup.

BS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$BS_ROOT/Scripts/lib/common.sh"
BS_PIDS=()
BS_DIRS=()
BS_NETNS=()
BS_WORK="$(mktemp -d /tmp/reachd-bench.XXXXXX)"
BS_DIRS+=("$BS_WORK")
BS_REACHD="$BS_ROOT/.build-bench/release/reachd"
BS_TOOL="$BS_WORK/dbusbench"

bs_cleanup() {
    local pid dir ns
    for pid in "${BS_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${BS_PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ -n "${BS_CONNMAN_DIR:-}" ]; then "$BS_ROOT/Scripts/harness/connman-netns" down "$BS_CONNMAN_DIR" >/dev/null 2>&1 || true; fi
    # The daemon-restart rows' labs (Scripts/benchsupport/daemon-restart.sh), should they be interrupted.
    local source lab
    for source in connman:connman-netns networkd:networkd-netns networkmanager:nm-netns; do
        lab="$(cat "${BS_WORK:-/nonexistent}/restart.${source%%:*}.dir" 2>/dev/null || true)"
        [ -n "$lab" ] && [ -d "$lab" ] || continue
        # shellcheck disable=SC2046
        kill $(cat "$BS_WORK/restart.${source%%:*}.pids" 2>/dev/null) 2>/dev/null || true
        "$BS_ROOT/Scripts/harness/${source#*:}" down "$lab" >/dev/null 2>&1 || true
        rm -rf "$lab" "$lab.up.err"
    done
    for dir in "${BS_DIRS[@]}"; do rm -rf "$dir"; done
    for ns in "${BS_NETNS[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
}

# bs_netns NAME: a fresh network namespace with `lo` up, deleted by bs_cleanup.
bs_netns() {
    ip netns add "$1"
    BS_NETNS+=("$1")
    ip -n "$1" link set lo up
}

# bs_uplink_netns NAME: bs_netns plus the uplink ReachdProcess.Network.privateWithDefaultRoute
# builds for the tests: a veth pair rv0 (192.0.2.2/24) and rv1, both up, default via 192.0.2.1.
# Nothing leaves it: 192.0.2.1 is no one, and rv1 is in the namespace too.
bs_uplink_netns() {
    bs_netns "$1"
    ip -n "$1" link add rv0 type veth peer name rv1
    ip -n "$1" link set rv1 up
    ip -n "$1" address add 192.0.2.2/24 dev rv0
    ip -n "$1" link set rv0 up
    ip -n "$1" route add default via 192.0.2.1
}

# bs_route_table NAME N: N more routes in NAME's main table, as a routing daemon's full
# table would be: /32s counted up from 100.64.0.0 (shared address space, 100.64.0.0/10
# holds 4 million) via 192.0.2.1, proto bird. None covers a probe address.
bs_route_table() {
    awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++)
        printf "route add 100.%d.%d.%d/32 via 192.0.2.1 proto bird\n", 64 + int(i / 65536), int(i / 256) % 256, i % 256 }' \
        | ip -n "$1" -batch -
}

# bs_cpu_ns PID: CPU time PID's threads have used, in nanoseconds (sum of the first field of
# /proc/PID/task/*/schedstat). /proc/PID/stat's utime + stime count in clock ticks of 10 ms,
# coarser than the figures measured with it; schedstat counts the same time in ns. A thread
# that exits takes its time with it: use it where reachd has one thread (no names resolved).
bs_cpu_ns() { cat "/proc/$1/task/"*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'; }

# bs_build: release reachd (own scratch path) and the C fixture.
bs_build() {
    install_missing "${REACHD_BUILD_PACKAGES[@]}" "${REACHD_TEST_PACKAGES[@]}" gcc strace
    find_swift
    release_link_directory
    say "building reachd (release, .build-bench)"
    (cd "$BS_ROOT" && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachd --scratch-path .build-bench >&2)
    # reachctl only for the installed-size rows.
    (cd "$BS_ROOT" && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachctl --scratch-path .build-bench >&2)
    say "compiling Scripts/benchsupport/dbusbench.c"
    # shellcheck disable=SC2046
    gcc -O2 -Wall -o "$BS_TOOL" "$BS_ROOT/Scripts/benchsupport/dbusbench.c" $(pkg-config --cflags --libs dbus-1)
}

# bs_bus session|system VAR: start a private bus, put its address in VAR.
bs_bus() {
    local out
    out="$("$BS_ROOT/Scripts/harness/private-bus" "$1" 2>/dev/null)"
    BS_PIDS+=("$(sed -n 's/^PID=//p' <<<"$out")")
    BS_DIRS+=("$(sed -n 's/^DIR=//p' <<<"$out")")
    printf -v "$2" '%s' "$(sed -n 's/^ADDRESS=//p' <<<"$out")"
}

# bs_mock ADDRESS: python-dbusmock's NetworkManager (State 70, Connectivity full, no devices).
bs_mock() {
    local out
    out="$("$BS_ROOT/Scripts/harness/nm-mock" "$1" 2>/dev/null)"
    BS_MOCK_PID="$(sed -n 's/^PID=//p' <<<"$out")"
    BS_PIDS+=("$BS_MOCK_PID")
}

# bs_wait_name ADDRESS NAME: until NAME is owned (5 s).
bs_wait_name() {
    for _ in $(seq 100); do
        busctl --address="$1" status "$2" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    say "$2 did not appear on $1"; return 1
}

# bs_reachd SESSION SYSTEM [ARGS...]: start reachd in the background, PID in BS_REACHD_PID.
bs_reachd() {
    local session="$1" system="$2"; shift 2
    DBUS_SESSION_BUS_ADDRESS="$session" "$BS_REACHD" --system-bus-address "$system" "$@" \
        </dev/null >>"$BS_WORK/reachd.log" 2>&1 &
    BS_REACHD_PID=$!
    BS_PIDS+=("$BS_REACHD_PID")
    bs_wait_name "$session" io.reachd.Reachability1
}

# bs_prop ADDRESS NAME: a property of reachd's main object, value only.
bs_prop() {
    busctl --address="$1" get-property io.reachd.Reachability1 /io/reachd/Reachability1 io.reachd.Reachability1 "$2" | cut -d' ' -f2-
}

# bs_kib PID FIELD: VmRSS or VmHWM in KiB.
bs_kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# bs_ticks PID: utime + stime in clock ticks, all threads.
bs_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# bs_cpu_ms_since PID TICKS: the CPU PID has used since bs_ticks said TICKS, in ms.
bs_cpu_ms_since() { echo $(( ($(bs_ticks "$1") - $2) * 1000 / $(getconf CLK_TCK) )); }

# bs_strace PID SECONDS OUT: `strace -c -f` of PID and all its threads for SECONDS;
# the summary in OUT, strace's stderr in OUT.err, timeout's exit status in OUT.rc
# (124: strace ran the whole window and was stopped by SIGINT).
bs_strace() {
    local rc=0
    timeout -s INT "$2" strace -c -f -o "$3" -p "$1" 2>"$3.err" || rc=$?
    echo "$rc" >"$3.rc"
}

# bs_strace_calls PID OUT: the number of system calls bs_strace counted, or nothing
# (and a reason on stderr) if it cannot tell. strace -c writes no table at all when
# it saw no call, so an empty OUT is 0 only if strace says on stderr that it attached
# to PID and detached from it when the window ended. The count is read from the
# total line's "calls" column, found by the header and the dashed rule under it:
# the "errors" column is blank when no call failed, so counting fields from the end
# would read usecs/call instead.
bs_strace_calls() {
    local pid="$1" out="$2"
    if ! grep -q "^strace: Process $pid attached" "$out.err" || ! grep -q "^strace: Process $pid detached" "$out.err" \
        || [ "$(cat "$out.rc" 2>/dev/null)" != 124 ]; then
        say "strace did not watch process $pid for the whole window (exit status $(cat "$out.rc" 2>/dev/null)): $(head -3 "$out.err")"
        return 0
    fi
    [ -s "$out" ] || { echo 0; return 0; }
    awk '
        /^% time/ && header == "" { header = $0; next }
        /^-+ / && header != "" && rule == "" { rule = $0; next }
        / total$/ { total = $0 }
        END {
            if (header == "" || rule == "" || total == "") exit 1
            # Column k spans the k-th run of dashes in the rule.
            for (i = 1; i <= length(rule); ) {
                if (substr(rule, i, 1) != "-") { i++; continue }
                for (start = i; i <= length(rule) && substr(rule, i, 1) == "-"; i++) { }
                name = substr(header, start, i - start); gsub(/ /, "", name)
                if (name == "calls") { value = substr(total, start, i - start); gsub(/ /, "", value); print value; exit 0 }
            }
            exit 1
        }' "$out" | grep -E '^[0-9]+$' || say "no calls column in strace's summary $out: $(cat "$out")"
}

# bs_median: median of the numbers on stdin.
bs_median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# bs_percentile P: P-th percentile (nearest rank) of the numbers on stdin.
bs_percentile() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1; print a[r] }'; }

# bs_callgrind OUT ADDRESS NAME CMD...: CMD, which serves NAME on the bus at ADDRESS, run under
# callgrind (instructions only; the caller's environment names the bus CMD serves on); its pid in
# BS_CALLGRIND_PID once NAME is owned (60 s: a program starts 50 times slower under valgrind).
# Dumps go to OUT.1, OUT.2…, valgrind's own messages to OUT.log.
bs_callgrind() {
    local out="$1" address="$2" name="$3"; shift 3
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" </dev/null >>"$out.log" 2>&1 &
    BS_CALLGRIND_PID=$!
    BS_PIDS+=("$BS_CALLGRIND_PID")
    for _ in $(seq 600); do
        busctl --address="$address" status "$name" >/dev/null 2>&1 && return 0
        kill -0 "$BS_CALLGRIND_PID" 2>/dev/null || break
        sleep 0.1
    done
    say "$name did not appear on $address under callgrind: $(tail -3 "$out.log")"; return 1
}

# bs_callgrind_per_call PID OUT N ADDRESS DEST PATH IFACE MEMBER: instructions the program bs_callgrind
# started as PID (dumping to OUT) spends per call, over N calls from one dbusbench `calls` client,
# after 200 calls to warm up. Counted between callgrind_control's zero and dump, so its start and
# its first calls are not in it. Prints nothing (and says why) if callgrind does not answer.
bs_callgrind_per_call() {
    local pid="$1" out="$2" n="$3" dump; shift 3
    "$BS_TOOL" calls "$@" 1 200 >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1 || { say "callgrind_control could not zero pid $pid"; return 0; }
    "$BS_TOOL" calls "$@" 1 "$n" >/dev/null
    callgrind_control -d "$pid" >/dev/null 2>&1 || { say "callgrind_control could not dump pid $pid"; return 0; }
    dump="$out.1"  # callgrind numbers its dumps from 1; this is the first
    [ -s "$dump" ] || { say "callgrind wrote no dump for pid $pid"; return 0; }
    awk -v n="$n" '/^(summary|totals):/ { printf "%d\n", $2 / n; exit }' "$dump"
}
