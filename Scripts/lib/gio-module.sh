# reachd's GIO network-monitor module (Sources/reachd-gio-module): how it is built, where it is
# installed and how GIO learns of it. Sourced, not run, by Scripts/install, Scripts/package,
# Scripts/bench and the GioModuleTests; needs common.sh's REACHD_ROOT and say.
#
# Built with cc and `pkg-config gio-2.0` rather than as a SwiftPM target: the module is one
# small C library that goes into other people's processes, so its link must carry no Swift
# runtime and its flags must be exact (-fvisibility=hidden: only the three g_io_module_*
# functions exported; -Wall -Wextra -Werror), which a SwiftPM C target only gets through
# unsafeFlags; and the tests need an AddressSanitizer build of the same sources beside it.

GIO_MODULE_FILE=libgioreachd.so
GIO_MODULE_BUILD_PACKAGES=(gcc pkg-config libglib2.0-dev)

# gio_module_build DIR [--asan]: compiles DIR/libgioreachd.so from the sources; prints its path.
# --asan: built with -fsanitize=address (a process loading it needs libasan preloaded).
gio_module_build() {
    local directory="$1" variant="${2:-}" flags=()
    # shellcheck disable=SC2207
    local gio=($(pkg-config --cflags --libs gio-2.0))
    case "$variant" in
        "") flags=(-O2 -g) ;;
        --asan) flags=(-O1 -g -fsanitize=address -fno-omit-frame-pointer) ;;
        *) say "gio_module_build: unknown variant '$variant'"; return 64 ;;
    esac
    mkdir -p "$directory"
    # Debian's hardening flags (as dpkg-buildflags gives packages) when dpkg-dev is there.
    local cflags=() ldflags=()
    if [ -z "$variant" ] && command -v dpkg-buildflags >/dev/null 2>&1; then
        # shellcheck disable=SC2207
        cflags=($(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS) $(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS))
        # shellcheck disable=SC2207
        ldflags=($(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS))
    fi
    cc -std=gnu11 "${cflags[@]}" "${flags[@]}" -fPIC -shared -fvisibility=hidden \
        -Wall -Wextra -Werror -Wl,--no-undefined -Wl,--as-needed "${ldflags[@]}" \
        -o "$directory/$GIO_MODULE_FILE" "$REACHD_ROOT"/Sources/reachd-gio-module/*.c "${gio[@]}" || return 1
    echo "$directory/$GIO_MODULE_FILE"
}

# gio_module_directory PREFIX: where GIO modules go under PREFIX, as GLib's own pkg-config file
# says (giomoduledir with its prefix replaced): /usr → /usr/lib/x86_64-linux-gnu/gio/modules,
# the folder GLib reads; /usr/local → /usr/local/lib/x86_64-linux-gnu/gio/modules, which GLib
# reads only when GIO_EXTRA_MODULES names it.
gio_module_directory() {
    pkg-config --define-variable=prefix="$1" --variable=giomoduledir gio-2.0
}

# gio_module_system_directory: the folder this machine's GLib loads modules from.
gio_module_system_directory() {
    pkg-config --variable=giomoduledir gio-2.0
}

# gio_module_update_cache DIR: rewrites DIR/giomodule.cache (GLib's gio-querymodules), which
# lets GLib load a module only when an app uses its extension point; with no module left in
# DIR it removes the cache.
gio_module_update_cache() {
    local querymodules
    querymodules="$(pkg-config --variable=gio_querymodules gio-2.0)"
    [ -x "$querymodules" ] || querymodules="$(command -v gio-querymodules || true)"
    if [ -z "$querymodules" ]; then
        say "gio-querymodules not found: GLib will find the module by scanning $1, without its cache"
        return 0
    fi
    "$querymodules" "$1"
}
