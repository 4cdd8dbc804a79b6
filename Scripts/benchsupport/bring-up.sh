# The bring-up rows of Scripts/bench (issue 43, item 6): a network coming up (link, address and
# default route, one `ip -batch`, a few milliseconds apart) and going (the link down), timed to an
# in-process NWPathMonitor and to a D-Bus subscriber of reachd (reachctl watch on the session bus),
# each in a namespace of its own (Scripts/benchsupport/bring-up). The first change after a quiet
# moment is evaluated at once (ChangePacing's bucket): a bring-up is published as it happens.
# Sourced by Scripts/bench after lib.sh and its row helpers (row, verdict); needs root.
# shellcheck shell=bash disable=SC2154

bench_bring_up() {
    local rounds=20 program reachctl out line v failed mode
    say "(q) bring-up and loss: link, address and route in one ip -batch, to an in-process NWPathMonitor and to reachctl watch over the session bus, $rounds rounds each"
    if [ "$(id -u)" != 0 ]; then
        row "bring-up to an in-process NWPathMonitor, median ms" "-" "-" "-" "≤ 50" "not run: needs root (network namespaces)"
        row "bring-up to a D-Bus subscriber, median ms" "-" "-" "-" "≤ 60" "not run: needs root (network namespaces)"
        return 0
    fi
    (cd "$BS_ROOT" && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachd-bench-path-monitor --scratch-path .build-bench >&2 \
        && swift_build "${REACHD_RELEASE_FLAGS[@]}" --product reachctl --scratch-path .build-bench >&2)
    program="$(dirname "$BS_REACHD")/reachd-bench-path-monitor"
    reachctl="$(dirname "$BS_REACHD")/reachctl"
    for mode in in-process dbus; do
        out="$BS_WORK/bring-up.$mode"
        failed=""
        if [ "$mode" = in-process ]; then
            # No bus at all in the namespace: the Network product answers from its own engine.
            env -i PATH=/usr/bin:/bin:/usr/sbin "$BS_ROOT/Scripts/benchsupport/bring-up" "$rounds" \
                ip netns exec '{ns}' unshare --mount -- sh -c 'mount -t tmpfs tmpfs /run/dbus; exec "$0" network' "$program" \
                >"$out" 2>&1 || failed="failed: $(tail -n 1 "$out")"
        else
            # reachd on a session bus of the namespace's own (no system bus: the kernel's routes),
            # and reachctl watch subscribed to it.
            env -i PATH=/usr/bin:/bin:/usr/sbin HOME="$BS_WORK" "$BS_ROOT/Scripts/benchsupport/bring-up" "$rounds" \
                ip netns exec '{ns}' dbus-run-session -- sh -c '"$0" --system-bus-address unix:path=/nonexistent/bus --log-level error &
                    for _ in $(seq 100); do "$1" --service session status >/dev/null 2>&1 && break; sleep 0.05; done
                    exec "$1" --service session watch --json' "$BS_REACHD" "$reachctl" \
                >"$out" 2>&1 || failed="failed: $(tail -n 1 "$out")"
        fi
        line=$(grep '^median-up ' "$out" || true)
        [ -n "$line" ] || failed=${failed:-"failed: no figures"}
        say "  $mode: $(grep -c '^up ' "$out" || true) rounds; ${line:-$(tail -n 2 "$out" | tr '\n' ' ')}"
        local up p99up down p99down target
        up=$(awk '{ print $2 }' <<<"$line"); p99up=$(awk '{ print $4 }' <<<"$line")
        down=$(awk '{ print $6 }' <<<"$line"); p99down=$(awk '{ print $8 }' <<<"$line")
        if [ "$mode" = in-process ]; then target=50; what="an in-process NWPathMonitor"; else target=60; what="a D-Bus subscriber (reachctl watch, session bus)"; fi
        v=${failed:-$(verdict "${up:-0} <= $target")}
        row "bring-up (link, address and route within a few ms) to $what, ms, median of $rounds (p99 in the baseline column)" \
            "${up:--}" "${p99up:--}" "-" "≤ $target" "$v"
        row "loss (the link down) to $what, ms, median of $rounds (p99 in the baseline column)" \
            "${down:--}" "${p99down:--}" "-" "(reported)" "${failed:--}"
    done
}
