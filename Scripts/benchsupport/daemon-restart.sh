# The idle rows after a daemon restart (issue 37): reachd's system calls while nothing changes,
# measured once ConnMan, systemd-networkd and NetworkManager have each restarted beside it. Sourced
# by Scripts/bench after lib.sh and its row helpers (row, verdict); needs root (network namespaces).
#
# Each daemon is the real one in network namespaces of its own on a private system bus
# (Scripts/harness/connman-netns, networkd-netns, nm-netns); the release reachd runs in the client
# namespace on a session bus of its own and follows it. The daemon restarts (SIGTERM, then started
# again; connmand takes its DHCP lease again and its check says online), reachd's Backend names it
# again, and after 2 s of quiet strace -c -f watches reachd, all threads, for ${idle} s (60 s; 10 s
# with --quick): 0 system calls. The three run side by side, so the rows take about one window
# (plus ConnMan's DHCP, twice) rather than three. A restart is where reachd once lost its quiet:
# after net.connman appeared, its NetworkManager backend read a name nobody owned every 5 s.
# Scripts/bench sets $idle.
# shellcheck shell=bash disable=SC2154

# bench_daemon_restart_one SOURCE: one source's measurement in the background; writes
# $BS_WORK/restart.SOURCE.calls (the count, or nothing) and .why (what went wrong, if anything).
bench_daemon_restart_one() {
    local source="$1" harness backend stop start options=() dir
    case "$source" in
        connman) harness=connman-netns; backend='"connman"'; stop=stop-connman; start=start-connman ;;
        networkd) harness=networkd-netns; backend='"systemd-networkd"'; stop=stop-networkd; start=start-networkd ;;
        networkmanager) harness=nm-netns; backend='"networkmanager"'; stop=stop-nm; start=start-nm; options=(--no-dns) ;;
    esac
    harness="$BS_ROOT/Scripts/harness/$harness"
    local out="$BS_WORK/restart.$source"
    : >"$out.calls"; : >"$out.why"
    # Not under $BS_WORK (0700): networkd runs as systemd-network and must reach DIR/sysbus/bus.
    dir="$(mktemp -d "/tmp/reachd-restart-$source.XXXXXX")"
    chmod 0755 "$dir"
    echo "$dir" >"$out.dir"  # for bs_cleanup, should the bench be interrupted
    # Once more if up fails (it takes itself down): three labs coming up at once on a busy machine.
    if ! CONNMAN_NETNS_TIMEOUT=90 NETWORKD_NETNS_TIMEOUT=60 NM_NETNS_TIMEOUT=60 "$harness" "${options[@]}" up "$dir" >/dev/null 2>"$dir.up.err" \
        && ! CONNMAN_NETNS_TIMEOUT=90 NETWORKD_NETNS_TIMEOUT=60 NM_NETNS_TIMEOUT=60 "$harness" "${options[@]}" up "$dir" >/dev/null 2>>"$dir.up.err"; then
        # ip's "Peer netns reference is invalid" is other namespaces' noise, not the reason.
        echo "failed: $harness up: $(grep -v 'Peer netns reference is invalid' "$dir.up.err" | tail -3 | tr '\n' ' ')" >"$out.why"; return 0
    fi
    local system namespace session pid
    system=$(sed -n 's/^SYSTEM_BUS_ADDRESS=//p' "$dir/env")
    namespace=$(sed -n 's/^CLIENT_NETNS=//p' "$dir/env")
    session="$("$BS_ROOT/Scripts/harness/private-bus" session 2>/dev/null)"
    local session_pid session_dir
    session_pid=$(sed -n 's/^PID=//p' <<<"$session"); session_dir=$(sed -n 's/^DIR=//p' <<<"$session")
    session=$(sed -n 's/^ADDRESS=//p' <<<"$session")
    ip netns exec "$namespace" env DBUS_SESSION_BUS_ADDRESS="$session" "$BS_REACHD" --system-bus-address "$system" \
        --log-level notice </dev/null >>"$BS_WORK/reachd-restart-$source.log" 2>&1 &
    pid=$!
    echo "$pid $session_pid" >"$out.pids"  # for bs_cleanup, should the bench be interrupted
    local ok=0
    if bs_wait_name "$session" io.reachd.Reachability1 && "$harness" "$stop" "$dir" >/dev/null 2>&1 \
        && "$harness" "$start" "$dir" >/dev/null 2>&1; then
        # The daemon back on the bus and reachd following it again (ConnMan: a new lease first).
        for _ in $(seq 600); do
            [ "$(bs_prop "$session" Backend 2>/dev/null)" = "$backend" ] && [ "$(bs_prop "$session" Status 2>/dev/null)" = 2 ] && { ok=1; break; }
            sleep 0.1
        done
    fi
    if [ "$ok" = 1 ]; then
        sleep 2
        bs_strace "$pid" "$idle" "$out.strace"
        bs_strace_calls "$pid" "$out.strace" >"$out.calls"
    else
        echo "failed: reachd's Backend is $(bs_prop "$session" Backend 2>/dev/null || echo '(no answer)'), not $backend, 60 s after the restart" >"$out.why"
    fi
    kill "$pid" "$session_pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$session_dir"
    "$harness" down "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir" "$dir.up.err"
}

bench_daemon_restarts() {
    local source what pids=()
    if [ "$(id -u)" != 0 ]; then
        for source in ConnMan systemd-networkd NetworkManager; do
            row "idle ${idle} s after $source restarts: system calls (strace -c -f)" "-" "-" "-" "0" "not run: needs root (network namespaces)"
        done
        return 0
    fi
    say "(n) idle ${idle} s after ConnMan, systemd-networkd and NetworkManager each restart (real daemons in namespaces, side by side)"
    for source in connman networkd networkmanager; do
        bench_daemon_restart_one "$source" & pids+=("$!")
    done
    for pid in "${pids[@]}"; do wait "$pid" || true; done
    local calls why v
    for source in connman:ConnMan networkd:systemd-networkd networkmanager:NetworkManager; do
        what="idle ${idle} s after ${source#*:} restarts: system calls (strace -c -f)"
        calls=$(cat "$BS_WORK/restart.${source%%:*}.calls" 2>/dev/null || true)
        why=$(cat "$BS_WORK/restart.${source%%:*}.why" 2>/dev/null || true)
        if [ -n "$why" ]; then v="$why"
        elif [ -n "$calls" ]; then v=$(verdict "$calls == 0")
        else v="failed: no count from strace (see its messages above)"; fi
        row "$what" "${calls:--}" "-" "-" "0" "$v"
        if [ -n "$calls" ] && [ "$calls" != 0 ]; then
            say "reachd's idle system calls after ${source#*:} restarted:"; sed -n '1,12p' "$BS_WORK/restart.${source%%:*}.strace" >&2
        fi
    done
}
