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
# shellcheck shell=bash disable=SC2154

SC_FIXTURE="$BS_ROOT/.build-bench/release/reachd-fixture-apple-systemconfiguration"

# sc_run MODE PROVIDER: one run of the fixture, as an app with the bench's buses.
sc_run() {
    local service=""
    [ "$2" = in-process ] && service=in-process
    env -i PATH=/usr/bin:/bin HOME="$BS_WORK" DBUS_SESSION_BUS_ADDRESS="$S" DBUS_SYSTEM_BUS_ADDRESS="$Y" \
        REACHD_SERVICE="$service" "$SC_FIXTURE" "$1"
}

bench_apple_systemconfiguration() {
    local provider mode out t0 t1 failed v first_sc first_manager
    say "(k) SystemConfiguration: building the Apple-style fixture (release, .build-bench)"
    (cd "$BS_ROOT" && swift build "${REACHD_RELEASE_FLAGS[@]}" --product reachd-fixture-apple-systemconfiguration \
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
}
