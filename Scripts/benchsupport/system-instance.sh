# The system instance's rows of Scripts/bench (issue 27): reachd --system as user reachd on a
# private system bus configured as Debian configures the real one, beside the minimal C
# service (dbusbench `serve`) on the same bus under the same policy. Sourced by Scripts/bench
# after lib.sh and its row helpers (row, ratio, verdict); needs root (it makes the reachd user
# and runs processes as other users).
#
# The bus: Debian's /usr/share/dbus-1/system.conf (deny by default: a name is owned and a method
# called only where a policy file allows it) with the edits Tests/ReachdTestSupport's
# PrivateBus(debianSystemBusWith:) makes: no user, fork, pidfile, syslog, servicehelper or
# standard_system_servicedirs; a listen path in a world-readable folder of its own; the
# machine's /usr/share/dbus-1/system.d (NetworkManager's policy: the mock, as root, owns its
# name through it) and an <includedir> for the staged policy folder.
#
# The C service's policy: the staged folder holds dbus/system/io.reachd.Reachability1.conf and a
# copy of it in which only the owned and called name is io.reachd.Baseline1 (sed on the `own` and
# `send_destination` attributes), so the C service is owned by the same user (reachd), called on
# the same interfaces by the same rules, and every message on the bus is checked against the same
# rule set; the copy follows ours whenever ours changes. The same bus rather than a second one: a
# GetStatus to either passes the same daemon, the same match rules (reachd's on NetworkManager)
# and the same policy. Before the rows, a call to an interface neither file allows is refused
# (AccessDenied) for both names: the policy is in force, not an allow-all.
#
# Callers run as user nobody (setpriv), as a system service or another user's app calls the
# system instance; dbusbench is copied into the bus's folder for them (BS_WORK is root's, 0700).
# Both services run as user reachd: reachd --system --no-config (the machine's
# /etc/reachd/reachd.conf would change what it does) --no-override (as the session rows' reachd:
# the mock's devices are not this machine's links).
# Scripts/bench sets the figures these read ($runs, $calls, $idle, $starts) and the buses ($S, $Y).
# shellcheck shell=bash disable=SC2154

# si_as USER COMMAND...: exec COMMAND as USER with its own group and no other (as the system unit
# and Tests/ReachdTestSupport's SystemInstance.run do). It replaces the shell, so that a background
# job's $! is COMMAND itself: call it in the background or in $(…).
si_as() {
    local user="$1"
    shift
    exec setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups "$@"
}

# si_system_bus DIRECTORY POLICIES VAR: Debian's system bus, edited as above, listening on
# DIRECTORY/bus; address in VAR, the daemon in BS_PIDS.
si_system_bus() {
    local directory="$1" policies="$2" out
    debian_system_bus_config "$directory/bus" "$policies" >"$directory/bus.conf"
    out="$(dbus-daemon --config-file="$directory/bus.conf" --fork --nopidfile --print-address=1 --print-pid=1 </dev/null)"
    BS_PIDS+=("$(sed -n 2p <<<"$out")")
    printf -v "$3" '%s' "$(sed -n 1p <<<"$out")"
}

# si_refused ADDRESS NAME: true when user nobody's call to NAME on an interface no policy file
# allows is refused by the bus.
si_refused() {
    local answer
    answer="$(si_as nobody env -i dbus-send --bus="$1" --print-reply --dest="$2" /io/reachd/Reachability1 \
        io.reachd.NotInThePolicy.Nothing 2>&1 || true)"
    grep -q "org.freedesktop.DBus.Error.AccessDenied" <<<"$answer"
}

bench_system_instance() {
    local directory policies Z tool reachd_pid c_pid r c session v rs cs s1 s2 clients t n failed=""
    say "(i) the system instance: reachd --system as user reachd, the C service beside it, Debian's system bus, callers as nobody"
    if [ "$(id -u)" != 0 ]; then
        row "system instance: RSS idle, MiB" "-" "-" "-" "≤ 6" "not run: needs root (the reachd user, setpriv)"
        row "system instance: idle ${idle} s, system calls" "-" "-" "-" "0" "not run: needs root (the reachd user, setpriv)"
        row "GetStatus calls/s over the system bus, vs minimal C service on the same bus, same policy" "-" "-" "-" "≥ 0.90" \
            "not run: needs root (the reachd user, setpriv)"
        return 0
    fi
    getent passwd reachd >/dev/null || systemd-sysusers "$BS_ROOT/dbus/system/reachd.sysusers.conf"
    directory="$(mktemp -d /tmp/reachd-bench-system.XXXXXX)"
    BS_DIRS+=("$directory")
    chmod 755 "$directory"
    policies="$directory/system.d"
    mkdir -m 755 "$policies"
    cp "$BS_ROOT/dbus/system/io.reachd.Reachability1.conf" "$policies/"
    sed 's/\(own\|send_destination\)="io\.reachd\.Reachability1"/\1="io.reachd.Baseline1"/' \
        "$BS_ROOT/dbus/system/io.reachd.Reachability1.conf" >"$policies/io.reachd.Baseline1.conf"
    chmod 644 "$policies/"*
    tool="$directory/dbusbench"
    install -m 755 "$BS_TOOL" "$tool"
    si_system_bus "$directory" "$policies" Z
    bs_mock "$Z"
    si_as reachd env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$Z" "$BS_REACHD" --system --no-config --no-override \
        </dev/null >>"$BS_WORK/reachd-system.log" 2>&1 &
    reachd_pid=$!
    BS_PIDS+=("$reachd_pid")
    si_as reachd "$tool" serve "$Z" io.reachd.Baseline1 </dev/null >>"$BS_WORK/c-system.log" 2>&1 &
    c_pid=$!
    BS_PIDS+=("$c_pid")
    bs_wait_name "$Z" io.reachd.Reachability1 || failed="failed: reachd --system did not own its name ($(tail -n 3 "$BS_WORK/reachd-system.log" | tr '\n' ' '))"
    bs_wait_name "$Z" io.reachd.Baseline1 || failed="failed: the C service did not own io.reachd.Baseline1 ($(tail -n 3 "$BS_WORK/c-system.log" | tr '\n' ' '))"
    if [ -n "$failed" ]; then :
    elif [ "$(cat "/proc/$reachd_pid/comm" 2>/dev/null)" != reachd ] || [ "$(cat "/proc/$c_pid/comm" 2>/dev/null)" != dbusbench ]; then
        failed="failed: the pids measured are not reachd's and the C service's"
    elif ! { si_refused "$Z" io.reachd.Reachability1 && si_refused "$Z" io.reachd.Baseline1; }; then
        failed="failed: the bus did not refuse a call outside the policy: not the deny-by-default policy"
    fi
    sleep 1

    # The session rows' reachd idle (their figure; with --only, it is idle now) in the text:
    # what --system changes.
    r=$(bs_kib "$reachd_pid" VmRSS); c=$(bs_kib "$c_pid" VmRSS); session=${r_idle:-$(bs_kib "$BS_REACHD_PID" VmRSS)}
    v=${failed:-$(verdict "$r <= 6144")}
    row "system instance: RSS idle, MiB (reachd --system as user reachd; session reachd $(awk -v k="$session" 'BEGIN { printf "%.1f", k / 1024 }'); baseline: C service as user reachd on the same system bus)" \
        "$(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }')" "$(awk -v k="$c" 'BEGIN { printf "%.1f", k / 1024 }')" \
        "$(ratio "$r" "$c")" "≤ 6" "$v"

    say "(i) system instance idle ${idle} s: strace -c -f of reachd --system and the C service together"
    bs_strace "$reachd_pid" "$idle" "$BS_WORK/strace.system.reachd" & s1=$!
    bs_strace "$c_pid" "$idle" "$BS_WORK/strace.system.c" & s2=$!
    wait "$s1" "$s2"
    rs=$(bs_strace_calls "$reachd_pid" "$BS_WORK/strace.system.reachd"); cs=$(bs_strace_calls "$c_pid" "$BS_WORK/strace.system.c")
    if [ -n "$failed" ]; then v="$failed"
    elif [ -n "$rs" ]; then v=$(verdict "$rs == 0")
    else v="failed: no count from strace (see its messages above)"; fi
    row "system instance: idle ${idle} s, system calls (strace -c -f; baseline: the C service)" "${rs:--}" "${cs:--}" "-" "0" "$v"
    if [ -n "$rs" ] && [ "$rs" != 0 ]; then say "reachd --system's idle system calls:"; sed -n '1,12p' "$BS_WORK/strace.system.reachd" >&2; fi

    say "(i) GetStatus over the system bus: $runs rounds, reachd then the C service, $calls calls per client count, callers as nobody"
    declare -A tp=()
    for clients in 1 8; do
        for _ in $(seq "$runs"); do
            for t in io.reachd.Reachability1 io.reachd.Baseline1; do
                n=$(si_as nobody env -i "$tool" calls "$Z" "$t" /io/reachd/Reachability1 io.reachd.Reachability1 GetStatus \
                    "$clients" $((calls / clients)) | sed -n '/errors=0$/s/.*per_second=\([0-9]*\).*/\1/p' || true)
                tp[$t.$clients]+="${n:-0} "
            done
        done
        # As the session rows: the median of each round's ratio (reachd against the C service
        # measured right after it).
        r=$(paste -d' ' <(tr ' ' '\n' <<<"${tp[io.reachd.Reachability1.$clients]}" | grep .) \
                        <(tr ' ' '\n' <<<"${tp[io.reachd.Baseline1.$clients]}" | grep .) \
            | awk '$2 > 0 { print $1 / $2 }' | bs_median | awk '{ printf "%.2f", $1 }')
        rs=$(tr ' ' '\n' <<<"${tp[io.reachd.Reachability1.$clients]}" | grep . | bs_median)
        cs=$(tr ' ' '\n' <<<"${tp[io.reachd.Baseline1.$clients]}" | grep . | bs_median)
        if [ -n "$failed" ]; then v="$failed"
        elif grep -qw 0 <<<"${tp[io.reachd.Reachability1.$clients]}${tp[io.reachd.Baseline1.$clients]}"; then
            v="failed: some rounds' calls failed (see dbusbench's messages above)"
        else v=$(verdict "$r >= 0.9"); fi
        row "GetStatus calls/s over the system bus, $clients client(s) as user nobody, vs minimal C service on the same bus, same policy" \
            "$rs" "$cs" "$r" "≥ 0.90" "$v"
    done
}
