# The ConnMan rows of Scripts/bench (contract 5, §5; issue 34): reachd following ConnMan, against
# a direct ConnMan subscriber on the same bus. Sourced by Scripts/bench after lib.sh and its row
# helpers (row, ratio, verdict); needs root (a network namespace).
#
# ConnMan is Scripts/harness/connman-standin in `connman-netns --standin` namespaces (the real
# connmand changes state only when the network does, seconds apart; the stand-in sends the same
# signal on demand): an ethernet service `online` over the namespace's veth. The release reachd
# runs in the client namespace on a session bus of its own, with the namespace's private system
# bus, and follows ConnMan (Backend connman).
# - change latency: dbusbench `latency-connman` toggles the manager's OfflineMode $changes times
#   (one net.connman.Manager PropertyChanged each; reachd goes Not Reachable, disabled, and back)
#   and stamps, from the Set it sends, the direct subscriber's PropertyChanged and reachd's
#   ReachabilityChanged. p50 reported, p99 targeted: at most 1.2 × the direct subscriber's. Both
#   include the stand-in's time from the Set to its signal (ConnMan's own time from an event to
#   its signal, in life); the extra hop through reachd, change by change, is reported apart.
# - idle: strace -c -f of that reachd for ${idle} s while ConnMan says nothing: no system call.
# Scripts/bench sets $changes and $idle.
# shellcheck shell=bash disable=SC2154

bench_connman() {
    local what_latency="change latency, ConnMan PropertyChanged → ReachabilityChanged"
    local what_idle="idle ${idle} s with ConnMan as the source: system calls (strace -c -f)"
    if [ "$(id -u)" != 0 ]; then
        for p in 50 99; do row "$what_latency p$p, ms (baseline: direct ConnMan subscriber)" "-" "-" "-" \
            "$([ $p = 99 ] && echo '≤ 1.2 × direct' || echo '(reported)')" "not run: needs root (network namespace)"; done
        row "$what_idle" "-" "-" "-" "0" "not run: needs root (network namespace)"
        return 0
    fi
    say "(m) ConnMan as the source: the stand-in in a namespace, $changes OfflineMode changes, then ${idle} s idle"
    local dir="$BS_WORK/connman" harness="$BS_ROOT/Scripts/harness/connman-netns"
    mkdir "$dir"
    "$harness" --standin up "$dir" >/dev/null
    BS_CONNMAN_DIR="$dir"
    local system namespace link
    system=$(sed -n 's/^SYSTEM_BUS_ADDRESS=//p' "$dir/env")
    namespace=$(sed -n 's/^CLIENT_NETNS=//p' "$dir/env")
    link=$(sed -n 's/^CLIENT_IF=//p' "$dir/env")
    local online offline
    online='{"State":"online","OfflineMode":false,"Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"'"$link"'"}]}'
    offline='{"State":"online","OfflineMode":true,"Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"'"$link"'"}]}'
    "$harness" standin-set "$dir" "$online"
    bs_bus session SK
    ip netns exec "$namespace" env DBUS_SESSION_BUS_ADDRESS="$SK" "$BS_REACHD" --system-bus-address "$system" \
        --log-level notice </dev/null >>"$BS_WORK/reachd-connman.log" 2>&1 &
    local pid=$!
    BS_PIDS+=("$pid")
    bs_wait_name "$SK" io.reachd.Reachability1
    local backend
    backend=$(bs_prop "$SK" Backend)
    if [ "$backend" != '"connman"' ]; then
        for p in 50 99; do row "$what_latency p$p, ms" "-" "-" "-" "-" "failed: reachd's Backend is $backend, not connman"; done
        row "$what_idle" "-" "-" "-" "0" "failed: reachd's Backend is $backend, not connman"
        return 0
    fi
    "$BS_TOOL" latency-connman "$system" "$SK" "$changes" "$offline" "$online" >"$BS_WORK/latency.connman" \
        || say "latency-connman: some changes missed"
    local p d r target v
    for p in 50 99; do
        d=$(awk '{ print $1 }' "$BS_WORK/latency.connman" | bs_percentile $p)
        r=$(awk '{ print $2 }' "$BS_WORK/latency.connman" | bs_percentile $p)
        if [ $p = 99 ]; then target="≤ 1.2 × direct"; v=$(verdict "$r <= 1.2 * $d")
        else target="(reported)"; v="-"; fi
        row "$what_latency p$p, ms (baseline: direct ConnMan subscriber, same bus)" \
            "$(awk -v u="$r" 'BEGIN { printf "%.3f", u / 1000 }')" "$(awk -v u="$d" 'BEGIN { printf "%.3f", u / 1000 }')" \
            "$(ratio "$r" "$d")" "$target" "$v"
    done
    # What reachd adds, change by change: its own hop, apart from the stand-in's time to signal.
    for p in 50 99; do
        r=$(awk '{ print $2 - $1 }' "$BS_WORK/latency.connman" | bs_percentile $p)
        row "extra hop through reachd p$p, ms (reachd − direct, same ConnMan change)" \
            "$(awk -v u="$r" 'BEGIN { printf "%.3f", u / 1000 }')" "-" "-" "(reported)" "-"
    done
    sleep 1
    bs_strace "$pid" "$idle" "$BS_WORK/strace.connman"
    local calls
    calls=$(bs_strace_calls "$pid" "$BS_WORK/strace.connman")
    if [ -n "$calls" ]; then v=$(verdict "$calls == 0"); else v="failed: no count from strace (see its messages above)"; fi
    row "$what_idle" "${calls:--}" "-" "-" "0" "$v"
    if [ -n "$calls" ] && [ "$calls" != 0 ]; then say "reachd's idle system calls with ConnMan:"; sed -n '1,12p' "$BS_WORK/strace.connman" >&2; fi
    kill "$pid" 2>/dev/null || true
    "$harness" down "$dir" >/dev/null 2>&1 || true
    BS_CONNMAN_DIR=""
}
