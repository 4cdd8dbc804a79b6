# The Network product's rows of Scripts/bench (issue 32, item 7): what Apple's NWPathMonitor costs
# a program over the library's own NetworkPathMonitor, both in-process. Sourced by Scripts/bench
# after lib.sh, in-process.sh (ip_connected) and its row helpers (row, verdict); uses its buses
# ($S with reachd, $Y with the NetworkManager mock).
#
# The program: reachd-bench-path-monitor (Tests/Fixtures/PathMonitorBench), built with the release
# flags beside reachd; `network` runs one NWPathMonitor, `library` one NetworkPathMonitor, each with
# a handler on a queue of its own. One binary for both, so the figures differ only by the front end.
# Both run with env -i and DBUS_SYSTEM_BUS_ADDRESS at the bench's system bus and its mock, and no
# session bus: the engine runs in the program (no reachd on the system bus), with NetworkManager.
# - threads (/proc/PID/task) and VmRSS of one of each, side by side, once both have printed their
#   first path and $AN_SETTLE s more have passed (past libdispatch's idle timeout), median of $runs
#   pairs; each pair also checks that both answer in-process (a connection on the system bus, none
#   on the session bus). Targets: no thread more, at most 0.5 MiB more.
# - idle: strace -c -f of one of each, side by side, settled as above, for ${idle} s, twice. On
#   reachd's event loop as Swift's main and default executor (--on-event-loop, as reachctl runs):
#   no system call. On Swift's own executors, as an app written for Apple's platforms runs:
#   once any task has slept (Task.sleep, as the library's start-up does), libdispatch re-arms a
#   timer every second for the life of the process (measured; ReachctlMain.swift), so the target
#   is the library's own monitor's count, no more.
# Scripts/bench sets $runs and $idle.
# shellcheck shell=bash disable=SC2154

AN_SETTLE=6

# an_monitor network|library OUT [--on-event-loop]: the program in the background; pid in AN_PID
# once its first line is out (nothing if it printed none in 5 s).
an_monitor() {
    env -i PATH=/usr/bin:/bin HOME="$BS_WORK" DBUS_SYSTEM_BUS_ADDRESS="$Y" "$AN_PROGRAM" "$1" ${3:+"$3"} </dev/null >"$2" 2>"$2.err" &
    AN_PID=$!
    BS_PIDS+=("$AN_PID")
    for _ in $(seq 100); do [ -s "$2" ] && return 0; sleep 0.05; done
    say "reachd-bench-path-monitor $1 printed nothing in 5 s: $(head -c 300 "$2.err")"
    kill "$AN_PID" 2>/dev/null || true
    AN_PID=""
}

bench_apple_network() {
    local mode run pid s1 s2 v added failed=""
    local target
    local -A pids=() threads=() rss=() idle_calls=()
    say "building reachd-bench-path-monitor (release, .build-bench)"
    (cd "$BS_ROOT" && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachd-bench-path-monitor --scratch-path .build-bench >&2)
    AN_PROGRAM="$(dirname "$BS_REACHD")/reachd-bench-path-monitor"
    say "(l) Network: a running NWPathMonitor against the library's NetworkPathMonitor, both in-process"
    for mode in network library; do : >"$BS_WORK/an.threads.$mode"; : >"$BS_WORK/an.rss.$mode"; done
    for run in $(seq "$runs"); do
        for mode in network library; do
            an_monitor "$mode" "$BS_WORK/an.out.$mode.$run"
            pids[$mode]="$AN_PID"
            [ -n "$AN_PID" ] || failed="failed: reachd-bench-path-monitor $mode printed nothing"
        done
        if [ -z "$failed" ]; then
            sleep "$AN_SETTLE"
            for mode in network library; do
                pid="${pids[$mode]}"
                find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l >>"$BS_WORK/an.threads.$mode"
                bs_kib "$pid" VmRSS >>"$BS_WORK/an.rss.$mode"
                if ip_connected "$S" "$pid" || ! ip_connected "$Y" "$pid"; then
                    failed="failed: $mode did not answer in-process (a connection on the system bus, none on the session bus)"
                fi
            done
        fi
        for mode in network library; do
            [ -z "${pids[$mode]}" ] || { kill "${pids[$mode]}" 2>/dev/null || true; wait "${pids[$mode]}" 2>/dev/null || true; }
        done
    done
    for mode in network library; do
        threads[$mode]=$(bs_median <"$BS_WORK/an.threads.$mode")
        rss[$mode]=$(bs_median <"$BS_WORK/an.rss.$mode")
        say "  $mode: threads $(paste -sd' ' "$BS_WORK/an.threads.$mode"); VmRSS KiB $(paste -sd' ' "$BS_WORK/an.rss.$mode")"
    done
    added=$(awk -v a="${threads[network]}" -v b="${threads[library]}" 'BEGIN { printf "%+d", a - b }')
    v=${failed:-$(verdict "${threads[network]} - ${threads[library]} <= 0")}
    row "Network: threads of a running NWPathMonitor, in-process, ${AN_SETTLE} s after its first path, median of $runs (baseline: the library's NetworkPathMonitor in the same program; ratio column: added)" \
        "${threads[network]}" "${threads[library]}" "$added" "≤ +0" "$v"
    added=$(awk -v a="${rss[network]}" -v b="${rss[library]}" 'BEGIN { printf "%+.2f", (a - b) / 1024 }')
    v=${failed:-$(verdict "${rss[network]} - ${rss[library]} <= 512")}
    row "Network: VmRSS of a program running an NWPathMonitor, in-process, ${AN_SETTLE} s after its first path, MiB, median of $runs (baseline: the library's NetworkPathMonitor in the same program; ratio column: added)" \
        "$(awk -v k="${rss[network]}" 'BEGIN { printf "%.2f", k / 1024 }')" "$(awk -v k="${rss[library]}" 'BEGIN { printf "%.2f", k / 1024 }')" \
        "$added" "≤ +0.5" "$v"

    local executor what
    for executor in --on-event-loop default; do
        say "(l) Network idle ${idle} s ($executor): strace -c -f of an NWPathMonitor and of the library's monitor, side by side"
        for mode in network library; do
            an_monitor "$mode" "$BS_WORK/an.idle.$executor.$mode" "$([ "$executor" = default ] || echo "$executor")"
            pids[$mode]="$AN_PID"
        done
        idle_calls=()
        if [ -n "${pids[network]}" ] && [ -n "${pids[library]}" ]; then
            sleep "$AN_SETTLE"
            bs_strace "${pids[network]}" "$idle" "$BS_WORK/strace.an.$executor.network" & s1=$!
            bs_strace "${pids[library]}" "$idle" "$BS_WORK/strace.an.$executor.library" & s2=$!
            wait "$s1" "$s2"
            for mode in network library; do
                idle_calls[$mode]=$(bs_strace_calls "${pids[$mode]}" "$BS_WORK/strace.an.$executor.$mode")
                if [ -n "${idle_calls[$mode]}" ] && [ "${idle_calls[$mode]}" != 0 ]; then
                    say "reachd-bench-path-monitor $mode's idle system calls ($executor):"; sed -n '1,12p' "$BS_WORK/strace.an.$executor.$mode" >&2
                fi
            done
        fi
        for mode in network library; do [ -z "${pids[$mode]}" ] || kill "${pids[$mode]}" 2>/dev/null || true; done
        if [ -z "${pids[network]}" ] || [ -z "${pids[library]}" ]; then v="failed: a monitor printed nothing"
        elif [ -z "${idle_calls[network]}" ] || [ -z "${idle_calls[library]}" ]; then v="failed: no count from strace (see its messages above)"
        elif [ "$executor" = default ]; then v=$(verdict "${idle_calls[network]} <= ${idle_calls[library]}")
        else v=$(verdict "${idle_calls[network]} == 0"); fi
        if [ "$executor" = default ]; then
            what="on Swift's own executors, as an app for Apple's platforms runs (there libdispatch re-arms a timer every second once a task has slept)"
            target="≤ baseline"
        else
            what="on reachd's event loop as Swift's executor, as reachctl runs"
            target="0"
        fi
        row "Network: a running NWPathMonitor idle ${idle} s from ${AN_SETTLE} s after its first path, $what, system calls, all threads (strace -c -f; baseline: the library's NetworkPathMonitor)" \
            "${idle_calls[network]:--}" "${idle_calls[library]:--}" "-" "$target" "$v"
    done
}
