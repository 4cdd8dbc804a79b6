# The SystemConfiguration product's rows of Scripts/bench (issue 32, item 7): what Apple's
# SCNetworkReachability API costs an app over the client library it fronts. Sourced by
# Scripts/bench after lib.sh and its row helpers (row, ratio, verdict); uses its buses ($S with
# reachd, $Y with the NetworkManager mock).
#
# The program: the Apple-style fixture (Tests/Fixtures/AppleSystemConfiguration), linked as
# Scripts/install links reachd and reachctl (REACHD_RELEASE_FLAGS, .build-bench). One binary does
# both runs, so they differ only in the API they call:
#   first-flags          SCNetworkReachabilityCreateWithAddress(0.0.0.0) + SCNetworkReachabilityGetFlags
#   first-flags-manager  NetworkReachabilityManager(.defaultRoute).fetchUpdate()
# each printing `flags=0x…` and exiting. Fork → exit (process start, the answer and exit included),
# median of $starts runs of each, in turn, with nothing of the caller's environment (env -i);
# once answered by the bench's reachd on the session bus (the library's automatic choice), once
# by the engine in-process (REACHD_SERVICE=in-process, NetworkManager's mock on $Y).
# Target: at most 1.2 × the library's own figure.
# Idle (issue 32, item 7, third bullet), measured as the Network rows are (apple-network.sh):
#   idle          a 0.0.0.0 target with a callback set, scheduled with SCNetworkReachabilitySetDispatchQueue
#   idle-manager  NetworkReachabilityManager(.defaultRoute) monitoring, its handler on a queue
# one of each, side by side, ${SC_SETTLE} s after its first callback (past libdispatch's idle
# timeout), strace -c -f of all their threads for ${idle} s; for each provider as above (each run
# checks that it answers where it should: a connection on the session bus, or on the system bus and
# none on the session bus), in two forms. With --on-event-loop the fixture makes reachd's event loop
# Swift's main and default executor before its first task, as reachctl runs: target 0. On Swift's
# own executors, as an app for Apple's platforms runs, once any task has slept (Task.sleep, as the
# library's start-up does) libdispatch re-arms a timer every second for the life of the process
# (measured; ReachctlMain.swift), so the target there is the library's own count, no more.
# Scripts/bench sets $starts and $idle.
# shellcheck shell=bash disable=SC2154

SC_FIXTURE="$BS_ROOT/.build-bench/release/reachd-fixture-apple-systemconfiguration"
SC_SETTLE=6

# sc_env PROVIDER: in SC_ENV, the command that runs a program as an app with the bench's buses,
# answered by reachd on the session bus (the library's automatic choice) or in-process.
sc_env() {
    local service=""
    [ "$1" = in-process ] && service=in-process
    SC_ENV=(env -i PATH=/usr/bin:/bin HOME="$BS_WORK" DBUS_SESSION_BUS_ADDRESS="$S" DBUS_SYSTEM_BUS_ADDRESS="$Y"
            REACHD_SERVICE="$service")
}

# sc_run MODE PROVIDER: one run of the fixture, as an app with the bench's buses.
sc_run() {
    sc_env "$2"
    "${SC_ENV[@]}" "$SC_FIXTURE" "$1"
}

# sc_monitor MODE PROVIDER OUT [--on-event-loop]: the fixture in the background (its own pid, for
# strace: env execs it); pid in SC_PID once its first line is out (nothing if it printed none in 5 s).
sc_monitor() {
    sc_env "$2"
    "${SC_ENV[@]}" "$SC_FIXTURE" "$1" ${4:+"$4"} </dev/null >"$3" 2>"$3.err" &
    SC_PID=$!
    BS_PIDS+=("$SC_PID")
    for _ in $(seq 100); do [ -s "$3" ] && return 0; sleep 0.05; done
    say "reachd-fixture-apple-systemconfiguration $1 ($2) printed nothing in 5 s: $(head -c 300 "$3.err")"
    kill "$SC_PID" 2>/dev/null || true
    SC_PID=""
}

# sc_answered_by PROVIDER PID: whether PID answers where PROVIDER says (see above).
sc_answered_by() {
    if [ "$1" = session ]; then ip_connected "$S" "$2"; else ! ip_connected "$S" "$2" && ip_connected "$Y" "$2"; fi
}

bench_apple_systemconfiguration_idle() {
    local provider executor mode s1 s2 v what who target failed
    local -A pids=() calls=()
    for provider in session in-process; do
        for executor in --on-event-loop default; do
            say "(k) SystemConfiguration idle ${idle} s ($provider, $executor): strace -c -f of a scheduled target and of the library's manager, side by side"
            failed=""
            for mode in idle idle-manager; do
                sc_monitor "$mode" "$provider" "$BS_WORK/sc.idle.$provider.$executor.$mode" "$([ "$executor" = default ] || echo "$executor")"
                pids[$mode]="$SC_PID"
                [ -n "$SC_PID" ] || failed="failed: $mode printed nothing"
            done
            calls=()
            if [ -z "$failed" ]; then
                sleep "$SC_SETTLE"
                for mode in idle idle-manager; do
                    sc_answered_by "$provider" "${pids[$mode]}" || failed="failed: $mode did not answer $provider (its bus connections)"
                done
                bs_strace "${pids[idle]}" "$idle" "$BS_WORK/strace.sc.$provider.$executor.idle" & s1=$!
                bs_strace "${pids[idle-manager]}" "$idle" "$BS_WORK/strace.sc.$provider.$executor.idle-manager" & s2=$!
                wait "$s1" "$s2"
                for mode in idle idle-manager; do
                    calls[$mode]=$(bs_strace_calls "${pids[$mode]}" "$BS_WORK/strace.sc.$provider.$executor.$mode")
                    if [ -n "${calls[$mode]}" ] && [ "${calls[$mode]}" != 0 ]; then
                        say "reachd-fixture-apple-systemconfiguration $mode's idle system calls ($provider, $executor):"
                        sed -n '1,12p' "$BS_WORK/strace.sc.$provider.$executor.$mode" >&2
                    fi
                done
            fi
            for mode in idle idle-manager; do
                [ -z "${pids[$mode]}" ] || { kill "${pids[$mode]}" 2>/dev/null || true; wait "${pids[$mode]}" 2>/dev/null || true; }
            done
            if [ -n "$failed" ]; then v="$failed"
            elif [ -z "${calls[idle]}" ] || [ -z "${calls[idle-manager]}" ]; then v="failed: no count from strace (see its messages above)"
            elif [ "$executor" = default ]; then v=$(verdict "${calls[idle]} <= ${calls[idle-manager]}")
            else v=$(verdict "${calls[idle]} == 0"); fi
            if [ "$executor" = default ]; then
                what="on Swift's own executors, as an app for Apple's platforms runs (there libdispatch re-arms a timer every second once a task has slept)"
                target="≤ baseline"
            else
                what="on reachd's event loop as Swift's executor, as reachctl runs"
                target="0"
            fi
            who=$([ "$provider" = session ] && echo "reachd on the session bus" || echo "the engine in-process")
            row "SystemConfiguration: a target scheduled with \`SCNetworkReachabilitySetDispatchQueue\` (callback set) idle ${idle} s from ${SC_SETTLE} s after its first callback, $what, answered by $who: system calls, all threads (strace -c -f; baseline: the library's \`NetworkReachabilityManager\` monitoring in the same program)" \
                "${calls[idle]:--}" "${calls[idle-manager]:--}" "-" "$target" "$v"
        done
    done
}

bench_apple_systemconfiguration() {
    local provider mode out t0 t1 failed v first_sc first_manager
    say "(k) SystemConfiguration: building the Apple-style fixture (release, .build-bench)"
    (cd "$BS_ROOT" && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachd-fixture-apple-systemconfiguration \
        --scratch-path .build-bench >&2)
    for provider in session in-process; do
        say "(k) SystemConfiguration: first flags, $starts runs each, in turn ($provider)"
        failed=""
        : >"$BS_WORK/sc.$provider.first-flags"; : >"$BS_WORK/sc.$provider.first-flags-manager"
        for _ in $(seq "$starts"); do
            for mode in first-flags first-flags-manager; do
                out="$BS_WORK/sc.out"
                t0=$EPOCHREALTIME
                (sc_run "$mode" "$provider") </dev/null >"$out" 2>&1 || true
                t1=$EPOCHREALTIME
                echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >>"$BS_WORK/sc.$provider.$mode"
                grep -q '^flags=0x' "$out" || failed="failed: $mode ($provider) printed no flags: $(head -c 200 "$out" | tr '\n' ' ')"
            done
        done
        first_sc=$(bs_median <"$BS_WORK/sc.$provider.first-flags")
        first_manager=$(bs_median <"$BS_WORK/sc.$provider.first-flags-manager")
        say "  SystemConfiguration ms: $(paste -sd' ' "$BS_WORK/sc.$provider.first-flags")"
        say "  NetworkReachabilityManager ms: $(paste -sd' ' "$BS_WORK/sc.$provider.first-flags-manager")"
        v=${failed:-$(verdict "$first_sc <= 1.2 * $first_manager")}
        row "SystemConfiguration: first flags, \`SCNetworkReachabilityCreateWithAddress\`(0.0.0.0) + \`GetFlags\`, fork → exit, ms, process start included, median of $starts, answered by $([ "$provider" = session ] && echo "reachd on the session bus" || echo "the engine in-process") (baseline: the same program through \`NetworkReachabilityManager.fetchUpdate()\`)" \
            "$(awk -v m="$first_sc" 'BEGIN { printf "%.1f", m }')" "$(awk -v m="$first_manager" 'BEGIN { printf "%.1f", m }')" \
            "$(ratio "$first_sc" "$first_manager")" "≤ 1.2 ×" "$v"
    done
    bench_apple_systemconfiguration_idle
}
