# The in-process rows of Scripts/bench (contract 4, §3.1; issue 28): what running reachd's
# engine inside a program costs that program, against the same program asking the bench's reachd
# over the session bus. Sourced by Scripts/bench after lib.sh and its row helpers (row, ratio,
# verdict); uses its buses ($S with reachd, $Y with the NetworkManager mock).
#
# The program: the installed reachctl (the release link Scripts/install makes, built by bs_build
# beside reachd), as a long-running library user: `reachctl watch`. The two runs differ only in
# --service: `session` asks the bench's reachd; `in-process` runs the engine in reachctl itself,
# with DBUS_SYSTEM_BUS_ADDRESS at the bench's system bus and its mock, so the engine has the same
# sources as that reachd (NetworkManager there, the kernel). Both get the same environment
# (env -i: no configuration of the machine's) and run in the machine's network namespace, the
# one the bench's reachd answers for (reachctl skips a reachd of another namespace).
# - threads (/proc/PID/task) and VmRSS of one watch of each, side by side, once both have printed
#   their first line and $IP_SETTLE s more have passed, median of $runs such pairs. Settled: past
#   libdispatch's idle timeout (5 s), after which the worker threads that reachctl's start-up woke
#   exit. Each pair also checks who answers: the session watch has a connection on the session
#   bus, the in-process one none there and one of its own on the system bus (NetworkManager's).
#   Targets: at most one thread more (the engine's loop), at most 1.5 MiB more.
# - idle: strace -c -f of one watch of each, side by side, settled as above, for ${idle} s: no
#   system call.
# - first answer: `reachctl status` from before the fork to its exit (process start, the
#   answer and exit included), median of $starts runs of each, in turn; its output must name
#   who answered (in this process / reachd on the session bus). Target: in-process ≤ 20 ms.
# Scripts/bench sets the figures these read ($runs, $calls, $idle, $starts) and the buses ($S, $Y).
# shellcheck shell=bash disable=SC2154

# ip_reachctl ARGS...: exec the installed reachctl with what both runs get, and nothing of the
# caller's environment (run it in a subshell or in the background: it replaces the shell).
ip_reachctl() {
    exec env -i PATH=/usr/bin:/bin HOME="$BS_WORK" DBUS_SESSION_BUS_ADDRESS="$S" DBUS_SYSTEM_BUS_ADDRESS="$Y" \
        "$IP_REACHCTL" "$@"
}

IP_SETTLE=6

# ip_connected ADDRESS PID: whether PID has a connection on the bus at ADDRESS.
ip_connected() { busctl --address="$1" list --no-legend 2>/dev/null | awk -v pid="$2" '$2 == pid { found = 1 } END { exit !found }'; }

# ip_watch session|in-process OUT: `reachctl watch` in the background; pid in IP_PID once its first
# line is out (nothing if it printed none in 5 s).
ip_watch() {
    ip_reachctl watch --service "$1" </dev/null >"$2" 2>"$2.err" &
    IP_PID=$!
    BS_PIDS+=("$IP_PID")
    for _ in $(seq 100); do [ -s "$2" ] && return 0; sleep 0.05; done
    say "reachctl watch --service $1 printed nothing in 5 s: $(head -c 300 "$2.err")"
    kill "$IP_PID" 2>/dev/null || true
    IP_PID=""
}

bench_in_process() {
    local mode run out pid s1 s2 t0 t1 v what failed=""
    local -A pids=()
    IP_REACHCTL="$(dirname "$BS_REACHD")/reachctl"
    say "(j) in-process: reachctl watch and status with reachd's engine inside, against the same over the session bus"
    : >"$BS_WORK/ip.threads.session"; : >"$BS_WORK/ip.threads.in-process"
    : >"$BS_WORK/ip.rss.session"; : >"$BS_WORK/ip.rss.in-process"
    for run in $(seq "$runs"); do
        for mode in session in-process; do
            ip_watch "$mode" "$BS_WORK/ip.watch.$mode.$run"
            pids[$mode]="$IP_PID"
            [ -n "$IP_PID" ] || failed="failed: reachctl watch --service $mode printed nothing"
        done
        if [ -z "$failed" ]; then
            sleep "$IP_SETTLE"
            for mode in session in-process; do
                pid="${pids[$mode]}"
                find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l >>"$BS_WORK/ip.threads.$mode"
                bs_kib "$pid" VmRSS >>"$BS_WORK/ip.rss.$mode"
                # What dominates, for a row that misses: the process's own memory, the files' pages.
                awk '$1 ~ /^Rss(Anon|File):$/ { printf "%s %s ", $1, $2 } END { print "" }' "/proc/$pid/status" >>"$BS_WORK/ip.rss-split.$mode"
            done
            if ! ip_connected "$S" "${pids[session]}" || ip_connected "$S" "${pids[in-process]}" || ! ip_connected "$Y" "${pids[in-process]}"; then
                failed="failed: not as chosen (the session watch on the session bus, the in-process one on the system bus only)"
            fi
        fi
        for mode in session in-process; do
            [ -z "${pids[$mode]}" ] || { kill "${pids[$mode]}" 2>/dev/null || true; wait "${pids[$mode]}" 2>/dev/null || true; }
        done
    done
    local -A threads=() rss=()
    for mode in session in-process; do
        threads[$mode]=$(bs_median <"$BS_WORK/ip.threads.$mode")
        rss[$mode]=$(bs_median <"$BS_WORK/ip.rss.$mode")
        say "  $mode: threads $(paste -sd' ' "$BS_WORK/ip.threads.$mode"); VmRSS KiB $(paste -sd' ' "$BS_WORK/ip.rss.$mode"); last run's $(tail -n 1 "$BS_WORK/ip.rss-split.$mode")"
    done
    local added
    added=$(awk -v a="${threads[in-process]}" -v b="${threads[session]}" 'BEGIN { printf "%+d", a - b }')
    v=${failed:-$(verdict "${threads[in-process]} - ${threads[session]} <= 1")}
    row "in-process: threads of \`reachctl watch\` ${IP_SETTLE} s after its first line, median of $runs (baseline: the same over the session bus; ratio column: added)" \
        "${threads[in-process]}" "${threads[session]}" "$added" "≤ +1" "$v"
    added=$(awk -v a="${rss[in-process]}" -v b="${rss[session]}" 'BEGIN { printf "%+.2f", (a - b) / 1024 }')
    v=${failed:-$(verdict "${rss[in-process]} - ${rss[session]} <= 1536")}
    row "in-process: VmRSS of \`reachctl watch\` ${IP_SETTLE} s after its first line, MiB, median of $runs (baseline: the same over the session bus; ratio column: added)" \
        "$(awk -v k="${rss[in-process]}" 'BEGIN { printf "%.2f", k / 1024 }')" "$(awk -v k="${rss[session]}" 'BEGIN { printf "%.2f", k / 1024 }')" \
        "$added" "≤ +1.5" "$v"

    say "(j) in-process idle ${idle} s: strace -c -f of reachctl watch, in-process and over the session bus, side by side"
    for mode in session in-process; do
        ip_watch "$mode" "$BS_WORK/ip.idle.$mode"
        pids[$mode]="$IP_PID"
    done
    local -A idle_calls=()
    if [ -n "${pids[session]}" ] && [ -n "${pids[in-process]}" ]; then
        sleep "$IP_SETTLE"
        bs_strace "${pids[in-process]}" "$idle" "$BS_WORK/strace.ip.in-process" & s1=$!
        bs_strace "${pids[session]}" "$idle" "$BS_WORK/strace.ip.session" & s2=$!
        wait "$s1" "$s2"
        for mode in session in-process; do
            idle_calls[$mode]=$(bs_strace_calls "${pids[$mode]}" "$BS_WORK/strace.ip.$mode")
            if [ -n "${idle_calls[$mode]}" ] && [ "${idle_calls[$mode]}" != 0 ]; then
                say "reachctl watch --service $mode's idle system calls:"; sed -n '1,12p' "$BS_WORK/strace.ip.$mode" >&2
            fi
        done
    fi
    for mode in session in-process; do [ -z "${pids[$mode]}" ] || kill "${pids[$mode]}" 2>/dev/null || true; done
    if [ -z "${pids[session]}" ] || [ -z "${pids[in-process]}" ]; then v="failed: a reachctl watch printed nothing"
    elif [ -n "${idle_calls[in-process]}" ]; then v=$(verdict "${idle_calls[in-process]} == 0")
    else v="failed: no count from strace (see its messages above)"; fi
    row "in-process: \`reachctl watch\` idle ${idle} s from ${IP_SETTLE} s after its first line, system calls, all threads (strace -c -f; baseline: the same over the session bus)" \
        "${idle_calls[in-process]:--}" "${idle_calls[session]:--}" "-" "0" "$v"

    say "(j) first answer: reachctl status, $starts runs each, in turn"
    : >"$BS_WORK/ip.status.session"; : >"$BS_WORK/ip.status.in-process"
    failed=""
    for _ in $(seq "$starts"); do
        for mode in session in-process; do
            out="$BS_WORK/ip.status.out"
            t0=$EPOCHREALTIME
            (ip_reachctl status --service "$mode") </dev/null >"$out" 2>&1 || true
            t1=$EPOCHREALTIME
            echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >>"$BS_WORK/ip.status.$mode"
            what=$([ "$mode" = session ] && echo "reachd on the session bus" || echo "in this process")
            grep -q "$what" "$out" || failed="failed: reachctl status --service $mode did not say \"$what\": $(head -c 200 "$out" | tr '\n' ' ')"
        done
    done
    local first_in first_bus
    first_in=$(bs_median <"$BS_WORK/ip.status.in-process"); first_bus=$(bs_median <"$BS_WORK/ip.status.session")
    v=${failed:-$(verdict "$first_in <= 20")}
    row "in-process: first answer, \`reachctl status\` fork → exit, ms, process start included, median of $starts (baseline: --service session)" \
        "$(awk -v m="$first_in" 'BEGIN { printf "%.1f", m }')" "$(awk -v m="$first_bus" 'BEGIN { printf "%.1f", m }')" "$(ratio "$first_in" "$first_bus")" "≤ 20" "$v"
}
