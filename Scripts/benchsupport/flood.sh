# The flood row of Scripts/bench (issue 40): one user's flood of never-answered names against
# reachd --system, and another user's CheckHost 127.0.0.1 during it. Sourced by Scripts/bench
# after lib.sh, system-instance.sh (si_as, si_system_bus) and its row helpers (row, verdict);
# needs root (the reachd user, setpriv, a network namespace).
#
# reachd --system runs as user reachd on Debian's deny-by-default system bus (as the (i) rows), in
# a network and mount namespace of its own: lo, a veth whose default route leads to 192.0.2.1
# where nothing answers, and /etc/resolv.conf naming that address (timeout 30 s), so every name
# is a name the resolver never answers, and nothing leaves the machine. The callers run in that
# namespace (nsenter), as two other users: `daemon` floods (Scripts/harness/host-flood flood: 256
# connections, Debian's max_connections_per_user, × 128 calls, its max_replies_per_connection, all
# at once), `nobody` probes (host-flood probe: CheckHost 127.0.0.1 every 20 ms, timed) and, as the
# baseline, asks the bus itself (host-flood bus-probe: the bus's own GetNameOwner every 20 ms).
# Each runs in a session of its own, as services and logins do (a share of the CPU each, with the
# kernel's autogroups). Figures: the probe's worst latency over five floods, one after another,
# each from its start until only the calls reachd took on are left, against the bus's own worst
# answer to the same user; and reachd's VmRSS before the floods and 30 s after the last flooder
# left. Each flood's lines also say what reachd and the bus daemon spent of CPU on it: a flood
# this size can tip dbus-daemon into walking one list of the whole flood for every message, and
# then it is slow for everyone (SystemInstanceFloodTests says more). The target is the test's:
# 1 s plus twelve times the bus's own worst.
# shellcheck shell=bash disable=SC2154

# flood_worst FILE FROM TO: the largest first field (ms) of FILE's lines FROM+1 to TO, rounded.
flood_worst() { sed -n "$(($2 + 1)),$3p" "$1" | awk '$1 + 0 > w { w = $1 + 0 } END { printf "%.0f", w }'; }

bench_flood() {
    local directory policies Z reachd_pid probe_pid control_pid flood_pid tool resolver before after worst answered v failed=""
    local bus_worst=0 round_bus_worst bus_lines_before bus_lines_after bus_worsts=""
    say "(p) one user's flood of never-answered names (256 connections × 128 CheckHost), another user's CheckHost 127.0.0.1 during it, five times"
    if [ "$(id -u)" != 0 ]; then
        row "flood: another user's worst CheckHost 127.0.0.1 during five floods of one user's 256 × 128 never-answered names, ms (reachd --system, Debian's system bus; baseline: the bus's own GetNameOwner to the same user)" "-" "-" "-" "< 1000 + 12 × baseline" \
            "not run: needs root (the reachd user, setpriv, a network namespace)"
        return 0
    fi
    getent passwd reachd >/dev/null || systemd-sysusers "$BS_ROOT/dbus/system/reachd.sysusers.conf"
    directory="$(mktemp -d /tmp/reachd-bench-flood.XXXXXX)"
    BS_DIRS+=("$directory")
    chmod 755 "$directory"
    policies="$directory/system.d"
    mkdir -m 755 "$policies"
    cp "$BS_ROOT/dbus/system/io.reachd.Reachability1.conf" "$policies/"
    chmod 644 "$policies/"*
    tool="$directory/host-flood"
    install -m 755 "$BS_ROOT/Scripts/harness/host-flood" "$tool"
    resolver="$directory/resolv.conf"
    printf 'nameserver 192.0.2.1\noptions timeout:30 attempts:1\n' >"$resolver"
    chmod 644 "$resolver"
    si_system_bus "$directory" "$policies" Z
    local bus_pid="${BS_PIDS[-1]}"
    setsid unshare --net --mount --propagation private -- /bin/sh -c '
        ip link set lo up && ip link add fv0 type veth peer name fv1 && ip link set fv1 up &&
        ip address add 192.0.2.2/24 dev fv0 && ip link set fv0 up && ip route add default via 192.0.2.1 &&
        mount --bind "$0" /etc/resolv.conf && exec "$@"' "$resolver" \
        setpriv --reuid="$(id -u reachd)" --regid="$(id -g reachd)" --clear-groups \
        env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$Z" "$BS_REACHD" --system --no-config \
        </dev/null >>"$BS_WORK/reachd-flood.log" 2>&1 &
    reachd_pid=$!
    BS_PIDS+=("$reachd_pid")
    bs_wait_name "$Z" io.reachd.Reachability1 || failed="failed: reachd --system did not own its name ($(tail -n 3 "$BS_WORK/reachd-flood.log" | tr '\n' ' '))"
    # in_reachd USER COMMAND…: COMMAND as USER in reachd's network namespace, in place of the
    # shell that runs it (so `$!` of `in_reachd … &` is the command's own pid, and killing it ends it).
    in_reachd() { local user="$1"; shift; exec setsid nsenter --net="/proc/$reachd_pid/ns/net" -- setpriv --reuid="$(id -u "$user")" \
        --regid="$(id -g "$user")" --clear-groups env -i PATH=/usr/bin:/bin "$@"; }
    if [ -z "$failed" ]; then
        (in_reachd nobody /usr/bin/python3 "$tool" probe "$Z" 127.0.0.1 20 >"$directory/probe.out" 2>&1) &
        probe_pid=$!
        BS_PIDS+=("$probe_pid")
        (in_reachd nobody /usr/bin/python3 "$tool" bus-probe "$Z" 20 >"$directory/control.out" 2>&1) &
        control_pid=$!
        BS_PIDS+=("$control_pid")
        sleep 2
        before=$(bs_kib "$reachd_pid" VmRSS)
        local ticks_before; ticks_before=$(bs_ticks "$reachd_pid")
        local round lines_before lines_after round_worst worsts="" reachd_ticks bus_ticks
        worst=0
        # Five floods, one after another (issue 44): each until only the calls reachd took on are left
        # (host-flood's `waiting` line), then the flooder leaves with them and the next one comes.
        for round in 1 2 3 4 5; do
            lines_before=$(wc -l <"$directory/probe.out")
            bus_lines_before=$(wc -l <"$directory/control.out")
            reachd_ticks=$(bs_ticks "$reachd_pid")
            bus_ticks=$(bs_ticks "$bus_pid")
            (in_reachd daemon /usr/bin/python3 "$tool" flood "$Z" 256 128 "r${round}n%d.flood.test" >"$directory/flood$round.out" 2>&1) &
            flood_pid=$!
            BS_PIDS+=("$flood_pid")
            for _ in $(seq 240); do grep -q '^waiting ' "$directory/flood$round.out" && break; sleep 0.5; done
            lines_after=$(wc -l <"$directory/probe.out")
            bus_lines_after=$(wc -l <"$directory/control.out")
            grep -q '^waiting ' "$directory/flood$round.out" || { failed="failed: flood $round was not answered within 120 s"; kill "$flood_pid" 2>/dev/null; break; }
            round_worst=$(flood_worst "$directory/probe.out" "$lines_before" "$lines_after")
            worsts+="${worsts:+, }$round_worst"
            [ "$round_worst" -le "$worst" ] || worst=$round_worst
            round_bus_worst=$(flood_worst "$directory/control.out" "$bus_lines_before" "$bus_lines_after")
            bus_worsts+="${bus_worsts:+, }$round_bus_worst"
            [ "$round_bus_worst" -le "$bus_worst" ] || bus_worst=$round_bus_worst
            say "  flood $round: $(sed -n 's/^waiting \([0-9]*\) seconds \([0-9.]*\)$/all but \1 calls answered in \2 s/p' "$directory/flood$round.out"); $(grep '^so-far ' "$directory/flood$round.out" | tr '\n' ' ')"
            say "    CPU during the flood: reachd $(bs_cpu_ms_since "$reachd_pid" "$reachd_ticks") ms, the bus $(bs_cpu_ms_since "$bus_pid" "$bus_ticks") ms"
            say "    probe: $((lines_after - lines_before)) answers, worst ${round_worst} ms (the bus's own answer: ${round_bus_worst} ms); over 500 ms (answer: ms): $(sed -n "$((lines_before + 1)),${lines_after}p" "$directory/probe.out" | awk '$1 + 0 > 500 { printf "%d:%s ", NR, $1 }')"
            kill "$flood_pid" 2>/dev/null || true
            wait "$flood_pid" 2>/dev/null || true
        done
        say "  the probe's worst in each flood: ${worsts} ms (the bus's own: ${bus_worsts} ms); reachd's CPU over the five: $(bs_cpu_ms_since "$reachd_pid" "$ticks_before") ms"
        sleep 30
        after=$(bs_kib "$reachd_pid" VmRSS)
        kill "$probe_pid" "$control_pid" 2>/dev/null || true
    fi
    v=${failed:-$(verdict "${worst:-0} < 1000 + 12 * ${bus_worst:-0}")}
    row "flood: another user's worst CheckHost 127.0.0.1 during five floods of one user's 256 × 128 never-answered names, ms (reachd --system, Debian's system bus; baseline: the bus's own GetNameOwner to the same user)" \
        "${worst:--}" "${bus_worst:--}" "$(ratio "${worst:-0}" "${bus_worst:-0}")" "< 1000 + 12 × baseline" "$v"
    v=${failed:-$(verdict "${after:-0} <= ${before:-0} + 8192")}
    row "flood: reachd's VmRSS 30 s after the flooder left, MiB (before the flood in the baseline column)" \
        "$(awk -v k="${after:-0}" 'BEGIN { printf "%.1f", k / 1024 }')" "$(awk -v k="${before:-0}" 'BEGIN { printf "%.1f", k / 1024 }')" \
        "$(ratio "${after:-0}" "${before:-1}")" "≤ before + 8" "$v"
}
