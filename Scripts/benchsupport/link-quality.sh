# The link-quality rows of Scripts/bench (contract 6, §5; issue 39): what a Wi-Fi signal costs
# reachd. Sourced by Scripts/bench after lib.sh and its row helpers (row, ratio, verdict).
#
# A system bus of its own with python-dbusmock's NetworkManager connected over Wi-Fi (an access
# point at Strength 80, LinkQuality good), and the release reachd following it (--no-override:
# the mock's wlan0 is not this machine's link).
# - stable: strace -c -f of reachd for ${idle} s while the signal holds: no system call.
# - fluttering: the access point's Strength alternates 52 and 58 (within the band around good's
#   threshold, 55) every 100 ms for ${flutter_s} s while strace counts reachd's system calls and
#   a session-bus monitor counts its PropertiesChanged: none announced; the calls per signal
#   (a NetworkManager signal read, the snapshot compared, the grade kept) are reported.
# Scripts/bench sets $idle.
# shellcheck shell=bash disable=SC2154

bench_link_quality() {
    local flutter_s=$(( idle < 20 ? idle : 20 ))
    local what_stable="LinkQuality: idle ${idle} s on a steady Wi-Fi signal: system calls (strace -c -f)"
    local what_announced="LinkQuality: ${flutter_s} s of a signal fluttering within the band: changes announced"
    local what_per_signal="LinkQuality: system calls per fluttering signal (strace -c -f over the same ${flutter_s} s)"
    say "(o) link quality: a Wi-Fi access point's Strength, steady for ${idle} s, then fluttering for ${flutter_s} s"
    local nm=org.freedesktop.NetworkManager manager=/org/freedesktop/NetworkManager
    bs_bus system YL
    bs_bus session SL
    bs_mock "$YL"
    local device="$manager/Devices/wlan0" ap="$manager/AccessPoint/ap0"
    busctl --address="$YL" call "$nm" /org/freedesktop org.freedesktop.DBus.Mock AddWiFiDevice ssi wlan0 wlan0 30 >/dev/null
    busctl --address="$YL" call "$nm" /org/freedesktop org.freedesktop.DBus.Mock AddAccessPoint ssssuuuyu \
        "$device" ap0 HomeNet 00:11:22:33:44:55 2 2437 54000 80 256 >/dev/null
    busctl --address="$YL" call "$nm" /org/freedesktop org.freedesktop.DBus.Mock AddWiFiConnection ssss \
        "$device" wifi0 HomeNet wpa-psk >/dev/null
    busctl --address="$YL" call "$nm" /org/freedesktop org.freedesktop.DBus.Mock AddActiveConnection assssu \
        1 "$device" "$manager/Settings/wifi0" "$ap" wifi0 2 >/dev/null
    busctl --address="$YL" call "$nm" "$device" org.freedesktop.DBus.Mock AddProperty ssv \
        "$nm.Device.Wireless" ActiveAccessPoint o "$ap" >/dev/null
    busctl --address="$YL" call "$nm" "$manager" org.freedesktop.DBus.Properties Set ssv "$nm" PrimaryConnection o "$manager/ActiveConnection/wifi0"
    busctl --address="$YL" call "$nm" "$manager" org.freedesktop.DBus.Properties Set ssv "$nm" State u 70
    DBUS_SESSION_BUS_ADDRESS="$SL" "$BS_REACHD" --system-bus-address "$YL" --no-override \
        </dev/null >>"$BS_WORK/reachd-link-quality.log" 2>&1 &
    local pid=$!
    BS_PIDS+=("$pid")
    bs_wait_name "$SL" io.reachd.Reachability1
    local quality
    for _ in $(seq 100); do
        quality=$(bs_prop "$SL" LinkQuality)
        [ "$quality" = '"good"' ] && break
        sleep 0.05
    done
    if [ "$quality" != '"good"' ]; then
        for what in "$what_stable" "$what_announced" "$what_per_signal"; do
            row "$what" "-" "-" "-" "-" "failed: LinkQuality is $quality, not good"
        done
        return 0
    fi
    sleep 1
    bs_strace "$pid" "$idle" "$BS_WORK/strace.link-stable"
    local calls v
    calls=$(bs_strace_calls "$pid" "$BS_WORK/strace.link-stable")
    if [ -n "$calls" ]; then v=$(verdict "$calls == 0"); else v="failed: no count from strace"; fi
    row "$what_stable" "${calls:--}" "-" "-" "0" "$v"

    dbus-monitor --address "$SL" "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='/io/reachd/Reachability1'" \
        >"$BS_WORK/link-quality.monitor" 2>&1 &
    local monitor=$!
    BS_PIDS+=("$monitor")
    sleep 0.5
    bs_strace "$pid" "$flutter_s" "$BS_WORK/strace.link-flutter" & local tracer=$!
    sleep 0.5
    local sent=0 deadline=$(( $(date +%s) + flutter_s - 1 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        for strength in 52 58; do
            busctl --address="$YL" call "$nm" "$ap" org.freedesktop.DBus.Properties Set ssv "$nm.AccessPoint" Strength y "$strength"
            sent=$((sent + 1))
            sleep 0.1
        done
    done
    wait "$tracer" || true
    sleep 0.5
    kill "$monitor" 2>/dev/null || true
    local announced
    announced=$(grep -c "member=PropertiesChanged" "$BS_WORK/link-quality.monitor" || true)
    row "$what_announced ($sent signals)" "$announced" "-" "-" "0" "$(verdict "$announced == 0")"
    calls=$(bs_strace_calls "$pid" "$BS_WORK/strace.link-flutter")
    if [ -n "$calls" ] && [ "$sent" -gt 0 ]; then
        row "$what_per_signal" "$(awk -v c="$calls" -v s="$sent" 'BEGIN { printf "%.1f", c / s }')" "-" "-" "(reported)" "-"
    else
        row "$what_per_signal" "-" "-" "-" "(reported)" "failed: no count from strace"
    fi
    [ "$quality" = '"good"' ] && [ "$(bs_prop "$SL" LinkQuality)" = '"good"' ] \
        || say "LinkQuality left good during the flutter: $(bs_prop "$SL" LinkQuality)"
    kill "$pid" 2>/dev/null || true
}
