"""What scripts/bench whep's two kinds of viewers (whep-light-viewers.py, whep-viewers.py) measure alike: the warm-up,
the window's CPU, memory and threads of each process from /proc, and the DELETE of every session. Standard library only,
so both interpreters (pyenv's for the light viewers, Debian's for GStreamer) import it."""
import os
import statistics
import time

HZ = os.sysconf("SC_CLK_TCK")


def process_ticks(pid):
    """utime + stime of every thread of pid, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def process_status(pid):
    found = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "RssAnon", "Threads"):
                    found[name] = int(value.split()[0])
    except FileNotFoundError:
        pass
    return {"rss_kib": found.get("VmRSS"), "anon_kib": found.get("RssAnon"), "threads": found.get("Threads")}


def spread(values):
    if not values:
        return None
    ordered = sorted(values)
    return {"min": round(ordered[0], 3), "p50": round(statistics.median(ordered), 3), "max": round(ordered[-1], 3)}


def total_bytes(received):
    """A viewer's received() ({kind: (packets, bytes, …)}): its bytes."""
    return sum(entry[1] for entry in received.values())


def warm_up(connected, seconds, run_for):
    """Runs (run_for(s) lets the viewers work s seconds) until every connected viewer's bytes grow, then 5 s more, for
    seconds at most; how long it took."""
    started = time.monotonic()
    before = {viewer.index: viewer.received() for viewer in connected}
    while time.monotonic() - started < seconds:
        run_for(2)
        now = {viewer.index: viewer.received() for viewer in connected}
        growing = sum(1 for viewer in connected if total_bytes(now[viewer.index]) > total_bytes(before[viewer.index]))
        before = now
        if growing >= len(connected):
            run_for(5)
            break
    return time.monotonic() - started


def measure(pids, connected, seconds, run_for):
    """The window: each process's CPU (% of one core), RSS and threads, and what each viewer received at its start
    and end; (processes, (start, end, seconds))."""
    t0, c0 = time.monotonic(), {name: process_ticks(pid) for name, pid in pids.items()}
    r0 = {viewer.index: viewer.received() for viewer in connected}
    run_for(seconds)
    r1 = {viewer.index: viewer.received() for viewer in connected}
    t1, c1 = time.monotonic(), {name: process_ticks(pid) for name, pid in pids.items()}
    processes = {}
    for name, pid in pids.items():
        cpu = (c1[name] - c0[name]) / HZ / (t1 - t0) * 100 if c0[name] is not None and c1[name] is not None else None
        processes[name] = {"pid": int(pid), "cpu": round(cpu, 2) if cpu is not None else None, **process_status(pid)}
    return processes, (r0, r1, t1 - t0)


def delete_all(viewers, token, after_each=lambda: None):
    """Every session DELETEd; a server that stops answering (three in a row not answered) is not asked further. The
    count of each answer (status, "not sent", or the error)."""
    deleted, unanswered = {}, 0
    for viewer in viewers:
        status = viewer.delete(token) if unanswered < 3 else ("not sent" if viewer.location else None)
        if status is not None:
            deleted[str(status)] = deleted.get(str(status), 0) + 1
        if isinstance(status, int):
            unanswered = 0
        elif status not in (None, "not sent"):  # the error: not answered
            unanswered += 1
        after_each()
    return deleted


def sessions(viewers):
    """How the viewers' POSTs were answered ({status: count}), those that connected, and what failed (the first 10
    named)."""
    statuses = {}
    for viewer in viewers:
        key = str(viewer.status) if viewer.status is not None else "none"
        statuses[key] = statuses.get(key, 0) + 1
    connected = [viewer for viewer in viewers if viewer.connected_at is not None]
    failed = [f"viewer {viewer.index}: {viewer.problem}" for viewer in viewers if viewer.problem]
    return statuses, connected, failed
