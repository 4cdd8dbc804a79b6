# Shared by Scripts/*: install what is missing, find the toolchain.
# Sourced, not run.

# Debian packages reachd needs to build and to test against real parts.
# At run time reachd needs their libraries, libdbus-1-3 and libidn2-0 (which
# libc6 recommends, so almost every Debian system has it already).
# gcc and libglib2.0-dev build the GIO network-monitor module (Scripts/lib/gio-module.sh).
REACHD_BUILD_PACKAGES=(libdbus-1-dev libidn2-dev pkg-config gcc libglib2.0-dev)
REACHD_TEST_PACKAGES=(
    dbus-daemon dbus-bin          # private buses, dbus-send
    libglib2.0-bin                # gdbus
    systemd                       # busctl
    python3-dbusmock              # NetworkManager stand-in for hardware we lack
    network-manager               # the real NetworkManager, in a namespace
    iproute2 dnsmasq-base         # namespaces, veth, a DNS server for the peer
    bubblewrap xdg-dbus-proxy     # a Flatpak app's bus, without Flatpak
    man-db dpkg-dev lintian       # manual pages rendered; the Debian package built and checked
    libglib2.0-dev libglib2.0-dev-bin gcc  # gdbus-codegen on the interface files, its C client built
    qtbase5-dev-tools             # qdbusxml2cpp on the interface files
    python3-gi gir1.2-glib-2.0    # a GLib app asking for its network monitor (ReachdGioModuleTests)
    python3-pyqt6                 # a Qt 6 app's QNetworkInformation over Qt's glib backend (QtAppTests)
    xdg-desktop-portal valgrind   # the portal over the GIO module; memcheck of the module
    strace                        # zero system calls while idle, counted (kernel path, connectivity check)
    zsh fish                      # reachctl's completion scripts, run by the shells they are for
    ethtool                       # tx checksumming off on a DHCP server's veth (ConnMan's client drops offloaded ones)
    busybox                       # BusyBox init supervising reachd from inittab, in a PID namespace (SupervisionTests)
)
# Test packages whose maintainer scripts would start a daemon that takes over the machine's
# interfaces (connmand): installed by install_missing_without_starting, which forbids that.
# The tests run them only inside network namespaces (Scripts/harness/connman-netns).
REACHD_TEST_DAEMON_PACKAGES=(
    connman                       # the real connmand, in a namespace (RealConnManTests)
)

REACHD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Release builds are linked for a small resident set (design §6: 8 MiB idle).
# Each step was measured with Scripts/bench's idle RSS row:
# - the Swift runtime statically (--static-swift-stdlib): 17.4 -> 14.8 MiB,
#   and the binaries need no Swift libraries at run time;
# - libstdc++ statically too (release_link_directory): only the few parts the
#   runtime uses are mapped, not all of libstdc++.so: about -1 MiB;
# - by lld, with packed relative relocations (-z pack-relative-relocs, glibc
#   2.36+): the loader no longer reads a 600 KiB relocation table;
# - the functions reachd runs placed together (Scripts/layout/reachd.order,
#   made by Scripts/layout/order): the kernel maps a file's pages in 64 KiB
#   runs around each one touched, so scattered hot code costs whole runs.
# Together: 10.2 -> 7.0 MiB for the one-thread reachd.
REACHD_RELEASE_FLAGS=(
    -c release --static-swift-stdlib
    -Xswiftc -use-ld=lld
    -Xlinker -z -Xlinker pack-relative-relocs
    # swiftc exports every global symbol of an executable; nothing dlopens or
    # dlsyms reachd or reachctl, and the export table costs 0.25 MB on disk and
    # 0.35 MiB of idle RSS (the loader reads and hashes it at start).
    -Xlinker --no-export-dynamic
    # Each Swift function in a section of its own, as the static runtime's already are: without
    # it a module's code is one section, which the order below cannot split and --gc-sections
    # keeps whole (issue 45: the order file had placed nothing of reachd's own).
    -Xswiftc -Xfrontend -Xswiftc -function-sections
    -Xlinker "--symbol-ordering-file=$REACHD_ROOT/Scripts/layout/reachd.order"
    -Xlinker --no-warn-symbol-ordering
)
# REACHD_SCRATCH_PATH builds somewhere other than .build: the package test runs
# Scripts/package while `swift test` holds .build's lock.
[ -z "${REACHD_SCRATCH_PATH:-}" ] || REACHD_RELEASE_FLAGS+=(--scratch-path "$REACHD_SCRATCH_PATH")

# release_with_shared_swift_runtime: REACHD_RELEASE_FLAGS for the other form of the release link,
# for images that ship the Swift runtime once for every Swift program (Yocto's meta-swift): the
# runtime as shared libraries (libswiftCore.so, libFoundationEssentials.so, libdispatch.so, …)
# instead of inside each binary. Measured stripped: reachctl 16 -> 3.5 MB (the issue). Without
# the toolchain's rpath: the binaries find the runtime where the image's loader looks (its
# library path, or LD_LIBRARY_PATH), never in this machine's /opt/swift. libstdc++ stays shared
# too (libswiftCore.so needs libstdc++.so whatever the binary does, so release_link_directory is
# not called for this form). Built in a folder of its own (BUILD-shared-swift-runtime beside the
# usual one), so that the two forms do not rebuild each other.
release_with_shared_swift_runtime() {
    local flag flags=() skip=no
    for flag in "${REACHD_RELEASE_FLAGS[@]}"; do
        if [ "$skip" = yes ]; then skip=no; continue; fi
        case "$flag" in
            --static-swift-stdlib) ;;
            --scratch-path) skip=yes ;;
            *) flags+=("$flag") ;;
        esac
    done
    REACHD_RELEASE_FLAGS=("${flags[@]}" -Xswiftc -no-toolchain-stdlib-rpath
        --scratch-path "${REACHD_SCRATCH_PATH:-$REACHD_ROOT/.build}-shared-swift-runtime")
}

# swift_runtime_directory: the toolchain's Swift runtime as shared libraries (libswiftCore.so and
# the rest), which the shared form needs on the library path to run here.
swift_runtime_directory() {
    local swift
    swift="$(command -v swift)" || return 1
    swift="$(readlink -f "$swift")"
    echo "$(dirname "$(dirname "$swift")")/lib/swift/linux"
}

# swift_runtime_libraries BINARY...: the toolchain's runtime libraries that the shared form's
# BINARYs load (ldd, with the runtime on the library path): what an image ships once for them.
swift_runtime_libraries() {
    local runtime
    runtime="$(swift_runtime_directory)" || return 1
    LD_LIBRARY_PATH="$runtime" ldd "$@" | awk -v directory="$runtime/" 'index($3, directory) == 1 { print $3 }' | sort -u
}

# stripped_size FILE...: the bytes FILEs take stripped (strip on a copy, as install --strip
# does), summed.
stripped_size() {
    local file copy total=0
    copy="$(mktemp)"
    for file in "$@"; do
        strip -o "$copy" "$file"
        total=$((total + $(stat -c %s "$copy")))
    done
    rm -f "$copy"
    echo "$total"
}

# release_link_directory: a directory whose libstdc++ is only the static
# archive, put first on the release link's library path so that the runtime's
# `-lstdc++` links it statically. Without the archive, the link stays dynamic.
release_link_directory() {
    local archive directory="$REACHD_ROOT/.build-link"
    archive="$(gcc -print-file-name=libstdc++.a 2>/dev/null || true)"
    if [ ! -f "$archive" ]; then
        say "no static libstdc++ (gcc -print-file-name=libstdc++.a); libstdc++ stays a shared library"
        return
    fi
    mkdir -p "$directory"
    ln -sf "$archive" "$directory/libstdc++.a"
    REACHD_RELEASE_FLAGS+=(-Xlinker -L -Xlinker "$directory")
}

say() { printf '==> %s\n' "$*" >&2; }

# debian_system_bus_config SOCKET POLICIES: Debian's own deny-by-default system.conf for a private
# system bus, on stdout: no user, fork, pidfile, syslog or activation helper, listening on SOCKET,
# with the machine's /usr/share/dbus-1/system.d (NetworkManager's policy) and the policy folder
# POLICIES (reachd's, staged) included. As Tests/ReachdTestSupport's PrivateBus(debianSystemBusWith:).
debian_system_bus_config() {
    sed -e 's#<\(user\|pidfile\|servicehelper\|listen\)>[^<]*</\1>##' \
        -e 's#<\(fork\|syslog\|standard_system_servicedirs\)/>##' \
        -e 's#<includedir>system.d</includedir>#<includedir>/usr/share/dbus-1/system.d</includedir>#' \
        -e "s#</busconfig>#  <listen>unix:path=$1</listen>\n  <includedir>$2</includedir>\n</busconfig>#" \
        /usr/share/dbus-1/system.conf
}

# install_missing PACKAGE...: apt-get install only what dpkg lacks.
install_missing() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    # In the tests' namespace /etc is an overlay that goes with the run (Scripts/harness/test-namespace):
    # a package installed there would lose its configuration files.
    if [ "${REACHD_TEST_NAMESPACE:-}" = 1 ]; then
        say "missing ${missing[*]}: install them outside the tests' namespace first (Scripts/test does)"
        return 1
    fi
    say "installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# install_missing_without_starting PACKAGE...: install_missing, with a policy-rc.d that exits 101
# (invoke-rc.d then starts nothing) for the duration, removed afterwards unless it was there.
install_missing_without_starting() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=() policy=/usr/sbin/policy-rc.d placed=0
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    if [ ! -e "$policy" ]; then
        say "installing ${missing[*]} with $policy exiting 101: their services must never start on this machine"
        printf '#!/bin/sh\n# Written by reachd'"'"'s Scripts/lib/common.sh while it installs test packages.\nexit 101\n' |
            "${sudo[@]}" tee "$policy" >/dev/null
        "${sudo[@]}" chmod 755 "$policy"
        placed=1
    fi
    local status=0
    install_missing "${missing[@]}" || status=$?
    if [ "$placed" = 1 ]; then "${sudo[@]}" rm -f "$policy"; fi
    # Installed for tests only: not started now, and not at the next boot either (the package's
    # postinst enables its unit whatever policy-rc.d says).
    if command -v systemctl >/dev/null 2>&1; then
        "${sudo[@]}" systemctl disable --quiet connman.service connman-wait-online.service >/dev/null 2>&1 || true
        if systemctl is-active --quiet connman.service 2>/dev/null; then
            say "connman.service is running on this machine after its install; stopping it"
            "${sudo[@]}" systemctl stop connman.service || true
        fi
    fi
    return "$status"
}

# find_swift: make sure `swift` is on PATH (the machine keeps it in /opt/swift).
find_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { say "no Swift toolchain found (looked on PATH and in /opt/swift)"; exit 1; }
}

# `swift build` with its temporary files in a folder of its own, removed when it ends. SwiftPM and
# the Swift driver leave TemporaryDirectory.* folders and lock files in $TMPDIR after every build
# (six for a one-file package), so builds in /tmp would pile them up on the machine; the scripts
# and the tests leave it as they found it.
swift_build() {
    local scratch status=0
    scratch="$(mktemp -d "${TMPDIR:-/tmp}/reachd-swift-build.XXXXXX")"
    TMPDIR="$scratch" swift build "$@" || status=$?
    rm -rf "$scratch"
    return "$status"
}
