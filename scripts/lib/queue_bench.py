#!/usr/bin/python3
"""Queue benchmark driver for `scripts/bench queue`.

Measures `sluice worker --concurrency 2` against a baseline worker (two pika consumers, prefetch 1 each,
one `ffmpeg -c copy -f flv` process per job) on the same broker, queue and clip:
  throughput: N jobs already queued; jobs/s from the first job's start to the last job's end;
  latency:    M jobs one at a time; enqueue-to-terminal p50/p95, and the overhead beyond the media work
              (sluice: started_at..finished_at in SQLite; baseline: the ffmpeg process's wall time).
Usage: queue_bench.py URL SLUICE_BIN DIR CLIP JOBS LATENCY_JOBS
"""
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime

import pika

BASELINE = r'''
import json, os, subprocess, sys, time
import pika
url, out, done = sys.argv[1], sys.argv[2], sys.argv[3]
connection = pika.BlockingConnection(pika.URLParameters(url))
channel = connection.channel()
channel.basic_qos(prefetch_count=1)
def on_message(ch, method, properties, body):
    job = json.loads(body)
    started = time.time()
    rc = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", job["input"],
                         "-map", "0:v", "-map", "0:a", "-c", "copy", "-f", "flv",
                         os.path.join(out, job["id"] + ".flv")]).returncode
    ended = time.time()
    with open(done, "a") as f:
        f.write(f"{job['id']} {started:.6f} {ended:.6f} {rc}\n")
    ch.basic_ack(method.delivery_tag)
channel.basic_consume("sluice.jobs", on_message)
open(done + ".ready-" + str(os.getpid()), "w").close()
channel.start_consuming()
'''


def parse_time(text):
    """SQLite's ISO-8601 UTC text (milliseconds) as a Unix time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def percentile(values, p):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


class Publisher:
    def __init__(self, url):
        self.connection = pika.BlockingConnection(pika.URLParameters(url))
        self.channel = self.connection.channel()
        self.channel.confirm_delivery()

    def publish(self, body):
        self.channel.basic_publish("sluice.jobs", "sluice.jobs", body.encode(),
                                   pika.BasicProperties(delivery_mode=2, content_type="application/json"))

    def close(self):
        self.connection.close()


def wait_for(condition, timeout, what, interval=0.005):
    """Polls; the figures come from recorded timestamps, so the interval only costs CPU, not accuracy."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(interval)
    raise SystemExit(f"bench: timed out waiting for {what}")


class Sluice:
    def __init__(self, url, binary, root, clip):
        self.url, self.binary, self.root, self.clip = url, binary, root, clip
        self.db = os.path.join(root, "sluice.sqlite")
        self.out = os.path.join(root, "out-sluice")
        os.makedirs(self.out, exist_ok=True)
        self.process = None

    def start(self):
        self.log = open(os.path.join(self.root, "sluice-worker.log"), "a")
        self.process = subprocess.Popen([self.binary, "worker", "--amqp-url", self.url, "--db", self.db,
                                         "--concurrency", "2", "--input-root", os.path.dirname(self.clip),
                                         "--output-root", self.out, "--worker-id", "bench"],
                                        stdout=self.log, stderr=self.log)

    def wait_ready(self):
        path = os.path.join(self.root, "sluice-worker.log")
        wait_for(lambda: "connected to" in open(path).read(), 30, "the sluice worker to connect")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)
        self.log.close()

    def job(self, job_id):
        return json.dumps({"id": job_id, "input": os.path.basename(self.clip), "outputs": [job_id + ".flv"]})

    def rows(self):
        if not os.path.exists(self.db):
            return {}
        with sqlite3.connect(self.db) as db:
            return {row[0]: row[1:] for row in db.execute(
                "SELECT id, state, started_at, finished_at FROM jobs WHERE finished_at IS NOT NULL")}

    def finished(self, ids):
        rows = self.rows()
        return [(rows[i][0], parse_time(rows[i][1]), parse_time(rows[i][2])) for i in ids if i in rows]


class Baseline:
    def __init__(self, url, root, clip):
        self.url, self.root, self.clip = url, root, clip
        self.out = os.path.join(root, "out-ffmpeg")
        self.done = os.path.join(root, "baseline-done.txt")
        os.makedirs(self.out, exist_ok=True)
        self.processes = []

    def start(self):
        for name in os.listdir(self.root):
            if name.startswith("baseline-done.txt.ready-"):
                os.remove(os.path.join(self.root, name))
        self.processes = [subprocess.Popen(["/usr/bin/python3", "-c", BASELINE, self.url, self.out, self.done])
                          for _ in range(2)]

    def wait_ready(self):
        wait_for(lambda: sum(n.startswith("baseline-done.txt.ready-") for n in os.listdir(self.root)) == 2, 30,
                 "the baseline consumers")

    def stop(self):
        for process in self.processes:
            process.terminate()
            process.wait(30)

    def job(self, job_id):
        return json.dumps({"id": job_id, "input": self.clip, "outputs": [job_id + ".flv"]})

    def finished(self, ids):
        rows = {}
        if os.path.exists(self.done):
            for line in open(self.done):
                job_id, started, ended, rc = line.split()
                rows[job_id] = ("succeeded" if rc == "0" else "failed", float(started), float(ended))
        return [rows[i] for i in ids if i in rows]


def throughput(system, publisher, prefix, count):
    ids = [f"{prefix}-t{i}" for i in range(count)]
    for job_id in ids:
        publisher.publish(system.job(job_id))
    system.start()
    wait_for(lambda: len(system.finished(ids)) == count, 600, f"{count} {prefix} jobs", interval=0.1)
    system.stop()
    rows = system.finished(ids)
    failed = sum(state != "succeeded" for state, _, _ in rows)
    span = max(end for _, _, end in rows) - min(start for _, start, _ in rows)
    return count / span, span, failed


def latency(system, publisher, prefix, count):
    system.start()
    system.wait_ready()
    latencies, overheads = [], []
    for i in range(count):
        job_id = f"{prefix}-l{i}"
        enqueued = time.time()
        publisher.publish(system.job(job_id))
        wait_for(lambda: system.finished([job_id]), 60, job_id)
        state, started, ended = system.finished([job_id])[0]
        latencies.append(ended - enqueued)
        overheads.append((ended - enqueued) - (ended - started))
        time.sleep(0.05)
    system.stop()
    return latencies, overheads


def main():
    url, binary, root, clip, jobs, latency_jobs = sys.argv[1:7]
    jobs, latency_jobs = int(jobs), int(latency_jobs)
    sluice = Sluice(url, binary, root, clip)
    baseline = Baseline(url, root, clip)
    # The worker declares the topology (sluice.jobs with its arguments) before anything is published.
    sluice.start()
    sluice.wait_ready()
    sluice.stop()
    publisher = Publisher(url)

    results = {}
    for name, system in (("sluice", sluice), ("baseline", baseline)):
        rate, span, failed = throughput(system, publisher, name, jobs)
        lat, over = latency(system, publisher, name, latency_jobs)
        results[name] = dict(rate=rate, span=span, failed=failed, lat=lat, over=over)
    publisher.close()

    print(f"{'':10} {'jobs/s':>8} {f'{jobs} in':>8} {'failed':>6} {'p50 lat':>8} {'p95 lat':>8} {'p50 overhead':>13} {'p95 overhead':>13}")
    for name, r in results.items():
        print(f"{name:10} {r['rate']:8.1f} {r['span']:7.2f}s {r['failed']:6d} "
              f"{percentile(r['lat'], 50)*1000:6.1f}ms {percentile(r['lat'], 95)*1000:6.1f}ms "
              f"{percentile(r['over'], 50)*1000:11.1f}ms {percentile(r['over'], 95)*1000:11.1f}ms")
    s, b = results["sluice"], results["baseline"]
    print(f"throughput ratio sluice/baseline {s['rate'] / b['rate']:.2f}x (goal >= 3x); "
          f"sluice p50 overhead beyond the media work {percentile(s['over'], 50)*1000:.1f} ms (goal <= 30 ms); "
          f"p50 latency ratio baseline/sluice {percentile(b['lat'], 50) / percentile(s['lat'], 50):.2f}x")


if __name__ == "__main__":
    main()
