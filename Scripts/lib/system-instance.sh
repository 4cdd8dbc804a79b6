# reachd's system instance (reachd --system, issue 27): the four files that set it up (dbus/system/),
# and for machines without systemd (issue 38) an init script (packaging/sysvinit/reachd) and a BusyBox
# inittab line (packaging/busybox/inittab); where Scripts/install puts them, and what a real install
# (no DESTDIR) does besides.
# Sourced, not run, by Scripts/install; needs common.sh's REACHD_ROOT and say, and Scripts/install's
# place_file, place_text and $lists. The Debian package carries the same files from a PREFIX=/usr
# staging; its maintainer scripts (packaging/deb/) do there what system_instance_register does here.
#
# Where each reader looks, from its manual:
# - the system bus's policies (system.conf's <includedir>s, dbus-daemon(1)): /usr/share/dbus-1/system.d
#   and /etc/dbus-1/system.d, never /usr/local/share/dbus-1/system.d;
# - its activation files (<standard_system_servicedirs/>, dbus-daemon(1)):
#   /usr/local/share/dbus-1/system-services, /usr/share/dbus-1/system-services;
# - systemd's system units (systemd.unit(5), `systemd-analyze unit-paths`): /etc/systemd/system,
#   /usr/local/lib/systemd/system, /usr/lib/systemd/system, /lib/systemd/system;
# - systemd-sysusers (sysusers.d(5)): /etc/sysusers.d, /usr/local/lib/sysusers.d, /usr/lib/sysusers.d;
# - sysvinit's rc and update-rc.d(8): /etc/init.d, and nothing else.
# So with PREFIX=/usr (the package) every file is where it is read; with /usr/local (the default)
# all but the policy are, and a real install as root puts a copy of the policy in /etc/dbus-1/system.d,
# the administrator's folder, which every system bus reads (recorded in the manifest like the rest).
# The init script goes to /etc/init.d with PREFIX=/usr (staged under DESTDIR too: a package's or an
# image's tree); with another prefix to PREFIX/etc/init.d, and a real install as root into /usr/local
# copies it to /etc/init.d as it copies the policy. It is installed, never enabled (update-rc.d
# reachd defaults, or a link in /etc/rcS.d, does that). The inittab line goes to
# PREFIX/share/reachd/inittab: an administrator appends it to /etc/inittab.
# Another prefix is only staged, and the install says what an administrator would do to use it:
# neither systemd nor the bus would start reachd from there, and an install into a scratch prefix
# (as tests make) must not change the system's users or bus policies.

SYSTEM_INSTANCE_USER=reachd
SYSTEM_INSTANCE_POLICY=io.reachd.Reachability1.conf
# The policy's copy for a prefix whose system.d the bus does not read.
SYSTEM_INSTANCE_ETC_POLICY=/etc/dbus-1/system.d/$SYSTEM_INSTANCE_POLICY
# The manifest's line for the user, when Scripts/install created it (the user is not a file).
SYSTEM_INSTANCE_MANIFEST_USER="user:$SYSTEM_INSTANCE_USER"
# The init script where sysvinit reads it.
SYSTEM_INSTANCE_INIT_SCRIPT=/etc/init.d/reachd

# system_instance_init_script ROOT PREFIX: the init script (its @bindir@ and @datadir@ filled in) on
# standard output.
system_instance_init_script() {
    sed -e "s|@bindir@|$2/bin|g" -e "s|@datadir@|$2/share|g" "$REACHD_ROOT/packaging/sysvinit/reachd"
}

# install_system_instance ROOT PREFIX: the unit and the activation file (their @bindir@ filled
# in), the bus policy and the sysusers.d entry, under ROOT (DESTDIR + PREFIX).
install_system_instance() {
    local root="$1" prefix="$2"
    sed "s|@bindir@|$prefix/bin|g" "$REACHD_ROOT/dbus/system/reachd.service" \
        | place_text 0644 "$root/lib/systemd/system/reachd.service"
    sed "s|@bindir@|$prefix/bin|g" "$REACHD_ROOT/dbus/system/io.reachd.Reachability1.service" \
        | place_text 0644 "$root/share/dbus-1/system-services/io.reachd.Reachability1.service"
    place_file 0644 "$REACHD_ROOT/dbus/system/$SYSTEM_INSTANCE_POLICY" "$root/share/dbus-1/system.d/$SYSTEM_INSTANCE_POLICY"
    place_file 0644 "$REACHD_ROOT/dbus/system/reachd.sysusers.conf" "$root/lib/sysusers.d/reachd.conf"
    # Without systemd: the init script, and the line BusyBox init's inittab takes.
    if [ "$prefix" = /usr ]; then
        system_instance_init_script "$root" "$prefix" | place_text 0755 "$DESTDIR$SYSTEM_INSTANCE_INIT_SCRIPT"
    else
        system_instance_init_script "$root" "$prefix" | place_text 0755 "$root/etc/init.d/reachd"
    fi
    sed "s|@bindir@|$prefix/bin|g" "$REACHD_ROOT/packaging/busybox/inittab" | place_text 0644 "$root/share/reachd/inittab"
}

# system_instance_manifest_entry PREFIX LINE: true for the manifest lines outside the prefix
# that Scripts/install may write with PREFIX, and so --uninstall may act on: exactly these.
system_instance_manifest_entry() {
    case "$1:$2" in
        "/usr/local:$SYSTEM_INSTANCE_ETC_POLICY"|"/usr/local:$SYSTEM_INSTANCE_INIT_SCRIPT") return 0 ;;
        "/usr:$SYSTEM_INSTANCE_INIT_SCRIPT") return 0 ;;
        "/usr:$SYSTEM_INSTANCE_MANIFEST_USER"|"/usr/local:$SYSTEM_INSTANCE_MANIFEST_USER") return 0 ;;
        *) return 1 ;;
    esac
}

# system_instance_user_exists: whether user reachd exists (in /etc/passwd or any other NSS source).
system_instance_user_exists() {
    getent passwd "$SYSTEM_INSTANCE_USER" >/dev/null 2>&1
}

# system_instance_register PREFIX: after a real install's files are placed under /usr or
# /usr/local, as root: creates user reachd from the installed sysusers.d entry (listed in the
# manifest when this made it), copies the policy where the system bus reads it, and reloads the
# bus and systemd. Under another prefix, says what an administrator would do instead.
# Nothing here fails the install: the files are in place and listed whatever happens.
system_instance_register() {
    local prefix="$1"
    case "$prefix" in
        /usr|/usr/local) ;;
        *)
            say "the system instance (reachd --system) is staged under $prefix, where neither systemd nor the system bus looks; to use it, as root:"
            say "  systemd-sysusers $prefix/lib/sysusers.d/reachd.conf"
            say "  cp $prefix/share/dbus-1/system.d/$SYSTEM_INSTANCE_POLICY /etc/dbus-1/system.d/"
            say "  without systemd: cp $prefix/etc/init.d/reachd /etc/init.d/ (or BusyBox init: $prefix/share/reachd/inittab)"
            say "  systemctl link $prefix/lib/systemd/system/reachd.service && systemctl enable --now reachd"
            say "  (D-Bus activation needs its file in /usr/local/share/dbus-1/system-services: Scripts/install with PREFIX=/usr/local does all of this)"
            return 0
            ;;
    esac
    if [ "$(id -u)" -ne 0 ]; then
        say "the system instance (reachd --system) is staged under $prefix; as root, Scripts/install also creates its user $SYSTEM_INSTANCE_USER and registers it with the system bus"
        return 0
    fi
    if ! system_instance_user_exists; then
        if command -v systemd-sysusers >/dev/null 2>&1; then
            systemd-sysusers "$prefix/lib/sysusers.d/reachd.conf" || true
        else
            useradd --system --user-group --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin \
                --comment "reachd network reachability service" "$SYSTEM_INSTANCE_USER" || true
        fi
        if system_instance_user_exists; then
            echo "$SYSTEM_INSTANCE_MANIFEST_USER" >> "$lists/files"
        else
            say "could not create user $SYSTEM_INSTANCE_USER: reachd --system cannot run until it exists (systemd-sysusers $prefix/lib/sysusers.d/reachd.conf)"
        fi
    fi
    if [ "$prefix" = /usr/local ]; then
        if [ -d "$(dirname "$SYSTEM_INSTANCE_ETC_POLICY")" ]; then
            place_file 0644 "$REACHD_ROOT/dbus/system/$SYSTEM_INSTANCE_POLICY" "$SYSTEM_INSTANCE_ETC_POLICY"
        else
            say "no $(dirname "$SYSTEM_INSTANCE_ETC_POLICY"): no system bus is installed, so the system instance cannot serve"
        fi
        if [ -d "$(dirname "$SYSTEM_INSTANCE_INIT_SCRIPT")" ]; then
            system_instance_init_script "$prefix" "$prefix" | place_text 0755 "$SYSTEM_INSTANCE_INIT_SCRIPT"
        fi
    fi
    system_instance_reload
}

# system_instance_reload: the system bus rereads its policies and activation files (it did on its
# own when the policy appeared, but the user the policy names may not have existed yet, and a
# policy naming an unknown user loses that rule), and systemd its units; each only if it runs.
system_instance_reload() {
    if [ -S /run/dbus/system_bus_socket ]; then
        if command -v busctl >/dev/null 2>&1; then
            busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null || true
        elif command -v dbus-send >/dev/null 2>&1; then
            dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.ReloadConfig >/dev/null || true
        fi
    fi
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload || true
    fi
}

# system_instance_bus_runs: whether the machine's system bus answers at its standard socket (not
# DBUS_SYSTEM_BUS_ADDRESS: the system instance is started by that bus, whatever this shell names).
system_instance_bus_runs() {
    [ -S /run/dbus/system_bus_socket ] || return 1
    command -v dbus-send >/dev/null 2>&1 || return 0
    dbus-send --bus=unix:path=/run/dbus/system_bus_socket --print-reply --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1
}

# system_instance_report PREFIX: after a real install as root into /usr or /usr/local, says whether
# a system bus runs here and how the system instance starts on this machine.
system_instance_report() {
    local prefix="$1"
    case "$prefix" in /usr|/usr/local) ;; *) return 0 ;; esac
    [ "$(id -u)" -eq 0 ] || return 0
    if ! system_instance_bus_runs; then
        say "no system bus runs here: the system instance (reachd --system) cannot serve until one does"
        say "  (Debian without systemd: /etc/init.d/dbus start; with systemd: systemctl start dbus; docs/administrators/whole-machine.md)"
    elif [ -d /run/systemd/system ]; then
        say "a system bus runs here: it starts the system instance (reachd --system, as user $SYSTEM_INSTANCE_USER) through systemd's reachd.service on a client's first call; from boot: systemctl enable --now reachd"
    else
        say "a system bus runs here, without systemd: its launch helper starts the system instance ($prefix/bin/reachd --system, as user $SYSTEM_INSTANCE_USER) on a client's first call; nothing starts it at boot"
    fi
    if [ ! -d /run/systemd/system ] && [ -x "$SYSTEM_INSTANCE_INIT_SCRIPT" ]; then
        say "  from boot without systemd: update-rc.d reachd defaults && $SYSTEM_INSTANCE_INIT_SCRIPT start; BusyBox init: the line in $prefix/share/reachd/inittab (docs/administrators/embedded.md)"
    fi
}

# system_instance_stop PREFIX: before --uninstall removes the files, stops the system instance
# running PREFIX's reachd, and says so: its binary is about to go, the bus would refuse its users
# once the policy goes, and a user that a process still runs as cannot be removed. Through systemd
# when systemd runs it from this prefix's unit; without systemd (the system bus's launch helper
# started it) as the Debian package's prerm does: start-stop-daemon, by user and executable.
system_instance_stop() {
    local prefix="$1" reachd="$1/bin/reachd"
    [ "$(id -u)" -eq 0 ] || return 0
    if [ -d /run/systemd/system ]; then
        if [ "$(systemctl show --property=FragmentPath --value reachd.service 2>/dev/null)" = "$prefix/lib/systemd/system/reachd.service" ] \
            && systemctl is-active --quiet reachd.service; then
            if systemctl stop reachd.service; then
                say "stopped the system instance (systemctl stop reachd)"
            else
                say "could not stop the system instance (systemctl stop reachd)"
            fi
        fi
        return 0
    fi
    system_instance_user_exists && [ -x "$reachd" ] || return 0
    if ! command -v start-stop-daemon >/dev/null 2>&1; then
        say "no start-stop-daemon (dpkg's): a system instance still running as user $SYSTEM_INSTANCE_USER is not stopped"
        return 0
    fi
    local running
    running="$(start-stop-daemon --stop --test --user "$SYSTEM_INSTANCE_USER" --exec "$reachd" 2>/dev/null \
        | sed -n 's/.* to \([0-9]*\)\.$/\1/p' | tr '\n' ' ')" || true
    [ -n "$running" ] || return 0
    if start-stop-daemon --stop --quiet --oknodo --retry 5 --user "$SYSTEM_INSTANCE_USER" --exec "$reachd"; then
        say "stopped the system instance ($reachd as user $SYSTEM_INSTANCE_USER, pid ${running% })"
    else
        say "could not stop the system instance ($reachd as user $SYSTEM_INSTANCE_USER, pid ${running% })"
    fi
}

# system_instance_unregister PREFIX LINE...: after --uninstall removed the files, removes the user
# (and its group) if the manifest's LINEs say Scripts/install created it, and, where the system
# read the files (/usr, /usr/local), reloads the bus and systemd.
# reachd owns no file, so no file is left to a user id that could be given to another user later.
system_instance_unregister() {
    local prefix="$1" line link
    shift
    for line in "$@"; do
        # The links update-rc.d made to the init script, gone with it (as update-rc.d reachd remove).
        if [ "$line" = "$SYSTEM_INSTANCE_INIT_SCRIPT" ]; then
            for link in /etc/rc?.d/[SK][0-9][0-9]reachd; do
                [ ! -L "$link" ] || rm -f -- "$link"
            done
            continue
        fi
        [ "$line" = "$SYSTEM_INSTANCE_MANIFEST_USER" ] || continue
        if [ "$(id -u)" -ne 0 ]; then
            say "kept user $SYSTEM_INSTANCE_USER, which Scripts/install created: only root can remove it (userdel $SYSTEM_INSTANCE_USER)"
            continue
        fi
        if system_instance_user_exists; then
            userdel "$SYSTEM_INSTANCE_USER" || say "could not remove user $SYSTEM_INSTANCE_USER"
        fi
        # userdel removes the user's own group only where login.defs says USERGROUPS_ENAB yes.
        if getent group "$SYSTEM_INSTANCE_USER" >/dev/null 2>&1; then
            groupdel "$SYSTEM_INSTANCE_USER" || say "could not remove group $SYSTEM_INSTANCE_USER"
        fi
    done
    case "$prefix" in
        /usr|/usr/local) [ "$(id -u)" -ne 0 ] || system_instance_reload ;;
    esac
}
