# Shared by Scripts/*: install what is missing, find the toolchain.
# Sourced, not run.

# Debian packages reachd needs to build and to test against real parts.
REACHD_BUILD_PACKAGES=(libdbus-1-dev pkg-config)
REACHD_TEST_PACKAGES=(
    dbus-daemon dbus-bin          # private buses, dbus-send
    libglib2.0-bin                # gdbus
    systemd                       # busctl
    python3-dbusmock              # NetworkManager stand-in for hardware we lack
    network-manager               # the real NetworkManager, in a namespace
    iproute2 dnsmasq-base         # namespaces, veth, a DNS server for the peer
)

# Release builds link the Swift runtime statically: the service's idle RSS
# falls from about 17 to 14 MiB (measured with Scripts/bench), and the
# binaries need no Swift libraries at run time.
REACHD_RELEASE_FLAGS=(-c release --static-swift-stdlib)

say() { printf '==> %s\n' "$*" >&2; }

# install_missing PACKAGE...: apt-get install only what dpkg lacks.
install_missing() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# find_swift: make sure `swift` is on PATH (the machine keeps it in /opt/swift).
find_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { say "no Swift toolchain found (looked on PATH and in /opt/swift)"; exit 1; }
}
