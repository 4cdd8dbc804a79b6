#!/usr/bin/python3
"""A GLib app as the ReachdGioModuleTests see one: python3-gi asking GIO for its network monitor,
as GTK apps, xdg-desktop-portal and Qt's glib plugin do. It knows nothing of reachd: which
monitor it gets is GIO's choice (GIO_EXTRA_MODULES, GIO_USE_NETWORK_MONITOR).

Every line on stdout is one JSON object, flushed at once.

  gio-consumer.py default                 get_default(): the type, how long it took, the values
  gio-consumer.py watch [named]           get_default(), then "ready" (named: with the unique name
                                          of the app's session-bus connection, which GIO shares
                                          with the module), then each notify:: and network-changed
                                          (with "at", CLOCK_MONOTONIC in seconds) until SIGTERM
  gio-consumer.py reach HOST PORT...      can_reach and can_reach_async for each host, both answers
                                          (HOST: a GNetworkAddress; inet:LITERAL a GInetSocketAddress;
                                          service:DOMAIN a GNetworkService for _http._tcp.DOMAIN)
  gio-consumer.py reach-on-usr1 HOST PORT get_default(), "ready", then on SIGUSR1 what reach says
  gio-consumer.py footprint               on the session bus first (as a GApplication is), then
                                          get_default(): the threads before and after, and the
                                          app's unique name; then idle until SIGTERM
  gio-consumer.py cancel HOST PORT        can_reach_async cancelled at once, and sync with a
                                          cancelled GCancellable
  gio-consumer.py flood N SLOW HOST...    N can_reach_async in flight at once (hosts in turn, but
                                          two names under SLOW, answered late: the first asked, and
                                          the one half-way); the answers, how long the slow ones
                                          waited, the longest call, and of the main loop's turns
                                          the most answers and the longest dispatch in one
  gio-consumer.py cancel-queued SLOW N HOST M
                                          N can_reach_async of names under SLOW (answered late: they
                                          fill the app's places on the bus), then M of HOST with one
                                          GCancellable, cancelled once all are asked: how and how
                                          soon those M were answered, and how many slow ones by then
  gio-consumer.py lifecycle CHANGES       a monitor of reachd's type made and initialised here,
                                          watched until it has signalled CHANGES network-changed,
                                          then released: "finalized" once it is gone
"""
import json
import os
import signal
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib, GObject  # noqa: E402


def say(**fields):
    print(json.dumps(fields, sort_keys=True), flush=True)


def values(monitor):
    return {
        "available": monitor.props.network_available,
        "connectivity": int(monitor.props.connectivity),
        "metered": monitor.props.network_metered,
    }


def error_fields(error):
    return {"domain": GLib.quark_to_string(error.domain) if isinstance(error.domain, int) else error.domain,
            "code": error.code, "message": error.message}


def connectable(host, port):
    if host.startswith("inet:"):
        return Gio.InetSocketAddress.new_from_string(host[len("inet:"):], int(port))
    if host.startswith("service:"):
        return Gio.NetworkService.new("http", "tcp", host[len("service:"):])
    return Gio.NetworkAddress.new(host, int(port))


def watch_events(monitor):
    def notified(obj, pspec):
        say(event="notify", property=pspec.name, at=time.monotonic(), **values(obj))

    def changed(obj, available):
        say(event="changed", signalled=available, at=time.monotonic(), **values(obj))

    handlers = [monitor.connect("notify::" + name, notified)
                for name in ("network-available", "network-metered", "connectivity")]
    handlers.append(monitor.connect("network-changed", changed))
    return handlers


def run_until_terminated(loop):
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, loop.quit)
    loop.run()


def command_default():
    # The time get_default() took, less what this app's threads spent waiting for a CPU (GDBus's
    # worker thread among them): on a loaded 2-core machine that wait is the neighbours', while a
    # module that waited for a timeout or a bus is asleep then, and still shows.
    started, waited = time.monotonic(), process_runqueue_wait()
    monitor = Gio.NetworkMonitor.get_default()
    wall = (time.monotonic() - started) * 1000
    took = max(0.0, wall - (process_runqueue_wait() - waited) * 1000)
    say(event="default", type=monitor.__gtype__.name, ms=took, wall_ms=wall, **values(monitor))


def threads():
    return len(os.listdir("/proc/self/task"))


def command_footprint():
    loop = GLib.MainLoop()
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    before = threads()
    monitor = Gio.NetworkMonitor.get_default()
    say(event="footprint", type=monitor.__gtype__.name, threads_before=before, threads_after=threads(),
        unique_name=connection.get_unique_name())
    run_until_terminated(loop)


def command_watch(named=False):
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    watch_events(monitor)
    fields = {"unique_name": Gio.bus_get_sync(Gio.BusType.SESSION, None).get_unique_name()} if named else {}
    say(event="ready", type=monitor.__gtype__.name, **fields, **values(monitor))
    run_until_terminated(loop)


def command_reach(arguments, monitor=None):
    loop = GLib.MainLoop()
    monitor = monitor or Gio.NetworkMonitor.get_default()
    pairs = list(zip(arguments[0::2], arguments[1::2]))
    pending = [len(pairs)]

    for host, port in pairs:
        try:
            sync = {"ok": monitor.can_reach(connectable(host, port), None)}
        except GLib.Error as error:
            sync = {"ok": False, "error": error_fields(error)}

        def done(obj, result, host=host, sync=sync):
            try:
                answer = {"ok": obj.can_reach_finish(result)}
            except GLib.Error as error:
                answer = {"ok": False, "error": error_fields(error)}
            say(event="reach", host=host, sync=sync, **{"async": answer})
            pending[0] -= 1
            if pending[0] == 0:
                loop.quit()

        monitor.can_reach_async(connectable(host, port), None, done)
    say(event="asked", type=monitor.__gtype__.name, count=len(pairs))
    if pairs:
        loop.run()


def command_reach_every(count, interval_ms, host, port):
    """From SIGUSR1 on, can_reach and can_reach_async of one host, `count` times, `interval_ms`
    apart: an app that asks again and again, as a download manager retrying does."""
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR1, loop.quit)
    say(event="ready", type=monitor.__gtype__.name, **values(monitor))
    loop.run()  # until SIGUSR1
    for _ in range(count):
        command_reach([host, port], monitor)
        time.sleep(interval_ms / 1000)
    say(event="done")


def command_qt(how):
    """A Qt 6 app's QNetworkInformation (PyQt6): the backend loaded by `how` (`glib` by name,
    `default`, or `features`: by the Reachability feature), and what it says."""
    from PyQt6.QtCore import QCoreApplication
    from PyQt6.QtNetwork import QNetworkInformation

    application = QCoreApplication(sys.argv[:1])
    if how == "glib":
        loaded = QNetworkInformation.loadBackendByName("glib")
    elif how == "features":
        loaded = QNetworkInformation.loadBackendByFeatures(QNetworkInformation.Feature.Reachability)
    else:
        loaded = QNetworkInformation.loadDefaultBackend()
    information = QNetworkInformation.instance()
    say(event="qt", ok=bool(loaded), type=information.backendName() if information else None,
        property=information.reachability().name if information else None,
        host=",".join(QNetworkInformation.availableBackends()))
    del application


def command_reach_on_usr1(host, port):
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR1, loop.quit)
    say(event="ready", type=monitor.__gtype__.name, **values(monitor))
    loop.run()
    command_reach([host, port], monitor)


def command_cancel(host, port):
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    cancellable = Gio.Cancellable()

    def done(obj, result):
        try:
            say(event="async", ok=obj.can_reach_finish(result))
        except GLib.Error as error:
            say(event="async", ok=False, error=error_fields(error))
        loop.quit()

    monitor.can_reach_async(connectable(host, port), cancellable, done)
    cancellable.cancel()
    loop.run()
    cancelled = Gio.Cancellable()
    cancelled.cancel()
    try:
        say(event="sync", ok=monitor.can_reach(connectable(host, port), cancelled))
    except GLib.Error as error:
        say(event="sync", ok=False, error=error_fields(error))


class MainLoopTurns(GLib.Source):
    """Marks the turns of the default main loop: GLib calls prepare() as a turn begins and
    check() once its poll has returned, so from check() to the next prepare() is the turn's
    dispatch, where every ready source ran. Never ready itself."""

    def __init__(self, answers):
        super().__init__()
        self.answers = answers
        self.polled = None
        self.turns = 0
        self.most_answers = 0
        self.longest = 0.0
        self.most_cpu = 0.0

    def prepare(self):
        if self.polled is not None:
            started, cpu, answers = self.polled
            self.turns += 1
            self.most_answers = max(self.most_answers, self.answers() - answers)
            self.longest = max(self.longest, time.monotonic() - started)
            self.most_cpu = max(self.most_cpu, time.thread_time() - cpu)
            self.polled = None
        return False, -1

    def check(self):
        self.polled = (time.monotonic(), time.thread_time(), self.answers())
        return False

    def finish(self):
        """Counts the turn that ended the loop, which no prepare() follows."""
        self.prepare()
        self.destroy()

    def dispatch(self, callback, args):
        return GLib.SOURCE_CONTINUE


def command_flood(count, slow, hosts):
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    answered = {"ok": 0, "count": 0}
    errors = {}
    slow_waits = []
    longest_ask = 0.0

    # What the test measures in units the machine's load does not change: how many answers one
    # turn of the loop carries (the module keeps 32 calls on the bus), and whether any turn, or
    # any can_reach_async, lasts as long as reachd takes over the slow names (it would, had the
    # module waited for a reply); the times per turn are for the record.
    def done(obj, result, asked=None):
        try:
            obj.can_reach_finish(result)
            answered["ok"] += 1
        except GLib.Error as error:
            errors[error.message] = errors.get(error.message, 0) + 1
        if asked is not None:
            slow_waits.append(time.monotonic() - asked)
        answered["count"] += 1
        if answered["count"] == count:
            loop.quit()

    turns = MainLoopTurns(lambda: answered["count"])
    turns.attach(GLib.MainContext.default())
    slow_at = {0: "n0." + slow, count // 2: "n1." + slow}
    started = time.monotonic()
    for i in range(count):
        before = time.monotonic()
        if i in slow_at:
            monitor.can_reach_async(connectable(slow_at[i], 443), None, done, before)
        else:
            monitor.can_reach_async(connectable(hosts[i % len(hosts)], 443), None, done)
        longest_ask = max(longest_ask, time.monotonic() - before)
    asked = time.monotonic()
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    turns.finish()
    say(event="flood", type=monitor.__gtype__.name, answered=answered["count"], succeeded=answered["ok"],
        errors=errors, ask_ms=(asked - started) * 1000, longest_ask_ms=longest_ask * 1000,
        answer_ms=(time.monotonic() - asked) * 1000, slow_ms=[wait * 1000 for wait in slow_waits],
        turns=turns.turns, most_per_turn=turns.most_answers, longest_turn_ms=turns.longest * 1000,
        most_turn_cpu_ms=turns.most_cpu * 1000)


def process_runqueue_wait():
    """Seconds all of this process's threads have spent runnable, waiting for a CPU."""
    total = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/schedstat" % task) as schedstat:
                total += int(schedstat.read().split()[1])
        except OSError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def command_cancel_queued(slow, slow_count, host, count):
    loop = GLib.MainLoop()
    monitor = Gio.NetworkMonitor.get_default()
    slow_answered = [0]
    outcomes = {}

    def slow_done(obj, result):
        slow_answered[0] += 1

    def done(obj, result):
        try:
            obj.can_reach_finish(result)
            outcome = "ok"
        except GLib.Error as error:
            outcome = "cancelled" if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED) else error.message
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if sum(outcomes.values()) == count:
            loop.quit()

    for i in range(slow_count):
        monitor.can_reach_async(connectable("n%d.%s" % (i, slow), 443), None, slow_done)
    cancellable = Gio.Cancellable()
    for _ in range(count):
        monitor.can_reach_async(connectable(host, 443), cancellable, done)
    started = time.monotonic()
    cancellable.cancel()
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    say(event="cancel-queued", outcomes=outcomes, ms=(time.monotonic() - started) * 1000, answered=slow_answered[0])


def command_lifecycle(changes):
    loop = GLib.MainLoop()
    # Made here rather than through get_default(), whose monitor GLib keeps for good. Asking
    # for the VFS (local: GIO_USE_VFS) loads GIO's modules, reachd's among them, as any app does.
    Gio.Vfs.get_default()
    gtype = GObject.type_from_name("ReachdNetworkMonitor")
    monitor = GObject.new(gtype)
    monitor.init(None)
    seen = [0]

    def changed(obj, available):
        say(event="changed", signalled=available, **values(obj))
        seen[0] += 1
        if seen[0] == changes:
            loop.quit()

    handler = monitor.connect("network-changed", changed)
    finalized = monitor.weak_ref(lambda: say(event="finalized"))  # noqa: F841 (kept: the weak ref lives as long as it)
    say(event="ready", type=monitor.__gtype__.name, **values(monitor))
    GLib.timeout_add_seconds(120, loop.quit)
    loop.run()
    # A can_reach_async in flight while the app lets go of the monitor.
    monitor.can_reach_async(connectable("127.0.0.1", 80), None, lambda obj, result: loop.quit())
    monitor.disconnect(handler)
    del monitor
    loop.run()
    # Let GDBus deliver what is still on its way to this context.
    context = GLib.MainContext.default()
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        context.iteration(False)
        time.sleep(0.01)
    say(event="done")


def main(argv):
    command, arguments = argv[1], argv[2:]
    if command == "default":
        command_default()
    elif command == "footprint":
        command_footprint()
    elif command == "watch":
        command_watch(arguments == ["named"])
    elif command == "reach":
        command_reach(arguments)
    elif command == "reach-every":
        command_reach_every(int(arguments[0]), int(arguments[1]), arguments[2], arguments[3])
    elif command == "qt":
        command_qt(arguments[0])
    elif command == "reach-on-usr1":
        command_reach_on_usr1(arguments[0], arguments[1])
    elif command == "cancel":
        command_cancel(arguments[0], arguments[1])
    elif command == "flood":
        command_flood(int(arguments[0]), arguments[1], arguments[2:])
    elif command == "cancel-queued":
        command_cancel_queued(arguments[0], int(arguments[1]), arguments[2], int(arguments[3]))
    elif command == "lifecycle":
        command_lifecycle(int(arguments[0]))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
