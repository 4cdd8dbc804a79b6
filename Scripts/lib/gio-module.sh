# reachd's GIO network-monitor module (Sources/reachd-gio-module): how it is built, where it is
# installed and how GIO learns of it. Sourced, not run, by Scripts/install, Scripts/package,
# Scripts/bench and the ReachdGioModuleTests; needs common.sh's REACHD_ROOT and say.
#
# Built with cc ($CC) and `pkg-config gio-2.0` rather than as a SwiftPM target: the module is one
# small C library that goes into other people's processes, so its link must carry no Swift
# runtime and its flags must be exact (-fvisibility=hidden: only the three g_io_module_*
# functions exported; -Wall -Wextra -Werror), which a SwiftPM C target only gets through
# unsafeFlags; and the tests need an AddressSanitizer build of the same sources beside it.

GIO_MODULE_FILE=libgioreachd.so
GIO_MODULE_BUILD_PACKAGES=(gcc pkg-config libglib2.0-dev)

# gio_module_build DIR [--asan]: compiles DIR/libgioreachd.so from the sources; prints its path.
# --asan: built with -fsanitize=address (a process loading it needs libasan preloaded).
# As builds do, it honours the environment's CC (a cross compiler or a wrapper, with words of its
# own: CC="aarch64-linux-gnu-gcc --sysroot=/sdk"), PKG_CONFIG and OBJCOPY, and CPPFLAGS, CFLAGS and
# LDFLAGS: each one set replaces its default (CPPFLAGS and LDFLAGS: Debian's hardening flags from
# dpkg-buildflags where dpkg-dev is; CFLAGS: -O2 -g and those), and comes after the flags the module
# needs (-fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror), so that -O1 or -Wno-error win.
gio_module_build() {
    local directory="$1" variant="${2:-}" flags=() compiler=() pkg_config=() objcopy=()
    read -r -a compiler <<< "${CC:-cc}"
    read -r -a pkg_config <<< "${PKG_CONFIG:-pkg-config}"
    read -r -a objcopy <<< "${OBJCOPY:-objcopy}"
    # shellcheck disable=SC2207
    local gio=($("${pkg_config[@]}" --cflags --libs gio-2.0))
    [ ${#gio[@]} -gt 0 ] || { say "gio_module_build: ${pkg_config[*]} --cflags --libs gio-2.0 found nothing (apt-get install libglib2.0-dev)"; return 1; }
    case "$variant" in
        "") flags=(-O2 -g) ;;
        --asan) flags=(-O1 -g -fsanitize=address -fno-omit-frame-pointer) ;;
        *) say "gio_module_build: unknown variant '$variant'"; return 64 ;;
    esac
    mkdir -p "$directory"
    # Debian's hardening flags (as dpkg-buildflags gives packages) when dpkg-dev is there.
    local cppflags=() cflags=() ldflags=()
    if [ -z "$variant" ] && command -v dpkg-buildflags >/dev/null 2>&1; then
        # shellcheck disable=SC2207
        cppflags=($(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS))
        # shellcheck disable=SC2207
        cflags=($(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS))
        # shellcheck disable=SC2207
        ldflags=($(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS))
    fi
    # The environment's, where set (even empty): words split as make splits them.
    [ -z "${CPPFLAGS+set}" ] || read -r -a cppflags <<< "$CPPFLAGS"
    if [ -n "${CFLAGS+set}" ]; then
        read -r -a cflags <<< "$CFLAGS"
        [ -n "$variant" ] || flags=()
    fi
    [ -z "${LDFLAGS+set}" ] || read -r -a ldflags <<< "$LDFLAGS"
    "${compiler[@]}" -std=gnu11 "${flags[@]}" -fPIC -shared -fvisibility=hidden \
        -Wall -Wextra -Werror -Wl,--no-undefined -Wl,--as-needed "${cppflags[@]}" "${cflags[@]}" "${ldflags[@]}" \
        -o "$directory/$GIO_MODULE_FILE" "$REACHD_ROOT"/Sources/reachd-gio-module/*.c "${gio[@]}" || return 1
    # The toolchain's version strings (the C runtime's objects carry them too): lintian asks.
    "${objcopy[@]}" --remove-section=.comment "$directory/$GIO_MODULE_FILE" || return 1
    echo "$directory/$GIO_MODULE_FILE"
}

# gio_module_directory PREFIX: where GIO modules go under PREFIX, as GLib's own pkg-config file
# says (giomoduledir with its prefix replaced): /usr → /usr/lib/x86_64-linux-gnu/gio/modules,
# the folder GLib reads; /usr/local → /usr/local/lib/x86_64-linux-gnu/gio/modules, which GLib
# reads only when GIO_EXTRA_MODULES names it (Scripts/install's folder for a user who cannot
# write GLib's, and Scripts/package's, which is Debian's whatever this machine's GLib says).
gio_module_directory() {
    pkg-config --define-variable=prefix="$1" --variable=giomoduledir gio-2.0
}

# gio_module_system_directory: the folder this machine's GLib loads modules from (besides
# GIO_EXTRA_MODULES), whatever the prefix: where Scripts/install puts the module by default.
gio_module_system_directory() {
    pkg-config --variable=giomoduledir gio-2.0
}

# gio_module_update_cache DIR: rewrites DIR/giomodule.cache (GLib's gio-querymodules), which
# lets GLib load a module only when an app uses its extension point; with no module left in
# DIR it removes the cache.
gio_module_update_cache() {
    local querymodules="" candidate
    # Debian keeps it out of PATH, in libglib2.0-0's /usr/lib/<multiarch>/glib-2.0.
    for candidate in "$(pkg-config --variable=gio_querymodules gio-2.0 2>/dev/null || true)" \
        /usr/lib/*/glib-2.0/gio-querymodules "$(command -v gio-querymodules || true)"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then querymodules="$candidate"; break; fi
    done
    if [ -z "$querymodules" ]; then
        say "gio-querymodules not found: GLib will find the module by scanning $1, without its cache"
        return 0
    fi
    "$querymodules" "$1"
}

# The Debian package: reachd-gio-module, a second binary package from the same build, so that an
# administrator can take reachd without changing every GLib app. GLib's own package
# (libglib2.0-0) has a dpkg file trigger on giomoduledir that runs gio-querymodules when a
# package adds or removes a module there, so this package needs no maintainer scripts.
GIO_MODULE_PACKAGE=reachd-gio-module

# gio_module_take REACHD_STAGE PACKAGE_STAGE: moves the module Scripts/install staged for the
# reachd package (PREFIX=/usr) into the tree of the reachd-gio-module package.
gio_module_take() {
    local from="$1" to="$2" directory
    directory="$(gio_module_directory /usr)"
    install -d "$to$directory"
    mv "$from$directory/$GIO_MODULE_FILE" "$to$directory/$GIO_MODULE_FILE"
    # The folders only the module needed (reachd's own files are not under lib/<multiarch>).
    rmdir -p --ignore-fail-on-non-empty "$from$directory"
}

# gio_module_deb SOURCE PACKAGE_STAGE REACHD_STAGE OUTPUT VERSION ARCHITECTURE MAINTAINER:
# builds OUTPUT/reachd-gio-module_VERSION_ARCHITECTURE.deb from PACKAGE_STAGE (SOURCE is the
# folder whose debian/control dpkg-shlibdeps reads; reachd's staged tree lends its copyright
# and changelog) and prints its path. Depends: the reachd of the same build, and the GLib
# libraries dpkg-shlibdeps finds.
gio_module_deb() {
    local source="$1" stage="$2" reachd_stage="$3" output="$4" version="$5" architecture="$6" maintainer="$7"
    local documentation="$stage/usr/share/doc/$GIO_MODULE_PACKAGE" depends package
    install -d "$documentation"
    install -m 0644 "$reachd_stage/usr/share/doc/reachd/copyright" "$documentation/copyright"
    install -m 0644 "$reachd_stage/usr/share/doc/reachd/changelog.gz" "$documentation/changelog.gz"
    printf '\nPackage: %s\nArchitecture: any\n' "$GIO_MODULE_PACKAGE" >> "$source/debian/control"
    # DEBIAN first: dpkg-shlibdeps finds the package's root by it.
    install -d -m 0755 "$stage/DEBIAN"
    depends="$(cd "$source" && dpkg-shlibdeps -O "$stage$(gio_module_directory /usr)/$GIO_MODULE_FILE" \
        | sed -n 's/^shlibs:Depends=//p')"
    [ -n "$depends" ] || { say "dpkg-shlibdeps found no dependencies for $GIO_MODULE_FILE"; return 1; }
    cat > "$stage/DEBIAN/control" <<CONTROL
Package: $GIO_MODULE_PACKAGE
Source: reachd
Version: $version
Architecture: $architecture
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: reachd (= $version), $depends
Section: net
Priority: optional
Homepage: https://github.com/reachd/reachd
Description: reachd's network state in every GLib app (GIO module)
 A GIO network-monitor module: GLib's GNetworkMonitor, which GTK and GLib
 apps, xdg-desktop-portal (and so every Flatpak app) and Qt's glib network
 information plugin ask whether the network is available, metered and
 connected, answers from reachd instead of NetworkManager alone: an
 unmanaged uplink, a kill switch, a lost carrier or a VPN without its
 underlay is seen, and each change is signalled.
 .
 Apps need no change. One app opts out with
 GIO_USE_NETWORK_MONITOR=networkmanager in its environment.
CONTROL
    (cd "$stage" && find usr -type f | sort | xargs md5sum) > "$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
    package="$output/${GIO_MODULE_PACKAGE}_${version}_${architecture}.deb"
    say "building $package"
    dpkg-deb --root-owner-group -Zxz --build "$stage" "$package" >/dev/null
    echo "$package"
}
