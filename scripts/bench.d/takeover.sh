# Sourced by scripts/bench: `scripts/bench takeover [RUNS [kill|term|cut]]` (default 5 runs of each). How long a live restream is gone from its
# destination when the worker that runs it goes: two `sluice worker`s (default lease timing) on a private RabbitMQ,
# a looping 1x publisher into a private nginx-rtmp, one restream job to another stream name. Once the destination has
# flowed for 3-4 s (a random point in the lease's renewal), the holder gets kill -9 (RUNS times) or SIGTERM (RUNS
# times); nginx-rtmp's statistics page, polled every 0.2 s, says when a new publisher sends bytes to the destination.
# Prints each time-to-flowing and the median of each. Each run has a vhost of its own, so nothing of one reaches the next.
# cut (root, iproute2, nftables, socat): the holder runs in a network namespace and is cut off from the broker only
# (its media path stays up); prints when its copy stopped and when the other worker's began, against heartbeat + 3 s.
# Then the broker's side of leases: 100 and 300 holders renewing claims as a worker does, claims/s and the broker's CPU.
bench_takeover() {
  local runs="${1:-5}" modes="${2:-kill term cut}"
  local dir
  dir=$(bench_broker_folder takeover)
  mkdir -p "$dir/out"
  local clip="$dir/clip-4s.mp4"
  bench_clip 4 "$clip"
  local amqp_port rtmp_port
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  echo "bench: starting a private RabbitMQ on 127.0.0.1:$amqp_port and nginx-rtmp on 127.0.0.1:$rtmp_port" >&2
  # Not $(…): the detached node and nginx would inherit the pipe and the substitution would wait for them forever.
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  scripts/lib/nginx-rtmp.sh start "$dir/nginx" "$rtmp_port" > "$dir/rtmp-url"
  # shellcheck disable=SC2064
  trap "scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' $amqp_port >/dev/null 2>&1 || true; scripts/lib/nginx-rtmp.sh stop '$dir/nginx' $rtmp_port >/dev/null 2>&1 || true" EXIT
  echo "== takeover: a restream's holder killed (kill -9) or stopped (SIGTERM), $runs runs each: time until the destination flows again"
  /usr/bin/python3 - "$(head -n 1 "$dir/amqp-url")" "$(head -n 1 "$dir/rtmp-url")" "$dir/nginx/stat.sock" "$dir/rabbitmq/rabbitmqctl" \
    "$bin/sluice" "$dir" "$clip" "$runs" "$modes" <<'PY'
import os, random, signal, socket, sqlite3, statistics, subprocess, sys, time
amqp, rtmp, stat_sock, ctl, sluice, folder, clip, runs, modes = sys.argv[1:10]
runs = int(runs)

def stat():
    """nginx-rtmp's statistics page: {stream: (publisher ids, bytes_in)}."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(stat_sock)
    s.sendall(b"GET /stat HTTP/1.0\r\nHost: localhost\r\n\r\n")
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    s.close()
    xml, streams = data.decode(errors="replace"), {}
    for block in xml.split("<stream>")[1:]:
        block = block.split("</stream>")[0]
        name = block.split("<name>")[1].split("</name>")[0]
        size = int(block.split("<bytes_in>")[1].split("</bytes_in>")[0]) if "<bytes_in>" in block else 0
        ids = [c.split("<id>")[1].split("</id>")[0] for c in block.split("<client>")[1:] if "<publishing/>" in c]
        streams[name] = (ids, size)
    return streams

def wait(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise SystemExit(f"bench: {what} within {timeout} s")

def job_state(database, job):
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute("SELECT state FROM jobs WHERE id = ?", (job,)).fetchone()
            return row[0] if row else None
    except sqlite3.Error:
        return None

def run(mode, index):
    name = f"{mode}-{index}"
    vhost = f"takeover-{name}"
    subprocess.run([ctl, "add_vhost", vhost], check=True, capture_output=True)
    subprocess.run([ctl, "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"], check=True, capture_output=True)
    url = amqp.rsplit("/", 1)[0] + "/" + vhost
    source, destination = f"src-{name}", f"dst-{name}"
    publisher = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                  "-i", clip, "-c", "copy", "-f", "flv", f"{rtmp}/{source}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = {}
    try:
        wait(lambda: stat().get(source, ([], 0))[0], 15, "the source never published")
        for worker in ("a", "b"):
            wid = f"w-{name}-{worker}"
            log = open(f"{folder}/{wid}.log", "w")
            workers[wid] = subprocess.Popen([sluice, "worker", "--amqp-url", url, "--db", f"{folder}/{wid}.sqlite",
                                             "--input-root", folder, "--output-root", f"{folder}/out",
                                             "--worker-id", wid, "--progress-s", "1"],
                                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        job = f"{folder}/job-{name}.json"
        with open(job, "w") as f:
            f.write('{"id": "%s", "input": {"url": "%s/%s", "timeout_s": 10}, "outputs": ["%s/%s"], "max_duration_s": 120}'
                    % (name, rtmp, source, rtmp, destination))
        subprocess.run([sluice, "enqueue", "--amqp-url", url, job], check=True, capture_output=True)
        wait(lambda: stat().get(destination, ([], 0))[0], 30, "the destination never had a publisher")
        holder = None
        def found():
            nonlocal holder
            holder = next((w for w in workers if job_state(f"{folder}/{w}.sqlite", name) == "running"), None)
            return holder is not None
        wait(found, 15, "no worker recorded the job running")
        time.sleep(3 + random.random())
        before = set(stat()[destination][0])
        last = stat()[destination][1]
        stopped = time.monotonic()
        workers[holder].send_signal(signal.SIGKILL if mode == "kill" else signal.SIGTERM)
        deadline = stopped + 60
        while time.monotonic() < deadline:
            ids, size = stat().get(destination, ([], 0))
            if set(ids) - before and size > last:
                return time.monotonic() - stopped
            # The old publisher gone, nginx drops the stream and counts a new one from zero.
            last = size if set(ids) - before or not ids else last
            time.sleep(0.2)
        raise SystemExit(f"bench: {name}: the destination did not flow again within 60 s; see {folder}/w-{name}-*.log")
    finally:
        for process in workers.values():
            process.kill()
            process.wait()
        publisher.kill()
        publisher.wait()
        subprocess.run([ctl, "delete_vhost", vhost], capture_output=True)

def sh(*command, check=True):
    return subprocess.run(list(command), check=check, capture_output=True, text=True)

def iso(text):
    """Seconds since the epoch of an ISO-8601 UTC time as the workers write it (2026-11-27T07:13:28.222Z)."""
    from datetime import datetime, timezone
    return datetime.strptime(text.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()

def run_cut(index, heartbeat=4):
    """The holder runs in a network namespace that reaches the broker over one veth pair and nginx-rtmp over another
    (socat on both ends, so its URLs are the same 127.0.0.1 ones); the cut drops every packet of the broker's pair in
    the namespace (nftables), silently: no reset, no unreachable, as a partition looks from both sides."""
    name = f"cut-{index}"
    ns, broker_port, media_port = f"sluice-{name}-{os.getpid()}", amqp.rsplit(":", 1)[1].split("/")[0], rtmp.rsplit(":", 1)[1].split("/")[0]
    links = {"b": ("10.231.1.1", "10.231.1.2", broker_port), "m": ("10.231.2.1", "10.231.2.2", media_port)}
    helpers, workers = [], {}
    vhost = f"takeover-{name}"
    sh(ctl, "add_vhost", vhost)
    sh(ctl, "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")
    url = amqp.rsplit("/", 1)[0] + "/" + vhost
    source, destination = f"src-{name}", f"dst-{name}"
    publisher = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                  "-i", clip, "-c", "copy", "-f", "flv", f"{rtmp}/{source}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        for key, (host, inside, port) in links.items():
            outer, inner = f"s{key}{index}h", f"s{key}{index}n"
            sh("ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
            sh("ip", "link", "set", inner, "netns", ns)
            sh("ip", "addr", "add", f"{host}/30", "dev", outer)
            sh("ip", "link", "set", outer, "up")
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{inside}/30", "dev", inner)
            sh("ip", "netns", "exec", ns, "ip", "link", "set", inner, "up")
            helpers.append(subprocess.Popen(["socat", f"TCP-LISTEN:{port},bind={host},fork,reuseaddr", f"TCP:127.0.0.1:{port}"]))
            helpers.append(subprocess.Popen(["ip", "netns", "exec", ns, "socat", f"TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr",
                                             f"TCP:{host}:{port}"]))
        wait(lambda: stat().get(source, ([], 0))[0], 15, "the source never published")
        time.sleep(0.5)  # the socat listeners
        def start(worker, namespace):
            wid = f"w-{name}-{worker}"
            log = open(f"{folder}/{wid}.log", "w")
            prefix = ["ip", "netns", "exec", ns] if namespace else []
            workers[wid] = subprocess.Popen(prefix + [sluice, "worker", "--amqp-url", url, "--db", f"{folder}/{wid}.sqlite",
                                                      "--input-root", folder, "--output-root", f"{folder}/out", "--worker-id", wid,
                                                      "--heartbeat-s", str(heartbeat), "--progress-s", "1"],
                                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
            return wid
        holder = start("cut", True)
        job = f"{folder}/job-{name}.json"
        with open(job, "w") as f:
            f.write('{"id": "%s", "input": {"url": "%s/%s", "timeout_s": 10}, "outputs": ["%s/%s"], "max_duration_s": 180}'
                    % (name, rtmp, source, rtmp, destination))
        sh(sluice, "enqueue", "--amqp-url", url, job)
        wait(lambda: job_state(f"{folder}/{holder}.sqlite", name) == "running" and stat().get(destination, ([], 0))[0], 30,
             "the holder in the namespace never published")
        other = start("direct", False)
        wait(lambda: "connected to" in open(f"{folder}/{other}.log").read(), 15, "the other worker never connected")
        time.sleep(2 + random.random())
        first = set(stat()[destination][0])
        inner = f"sb{index}n"
        sh("ip", "netns", "exec", ns, "nft", "add", "table", "inet", "cut")
        for hook, direction in (("input", "iifname"), ("output", "oifname")):
            sh("ip", "netns", "exec", ns, "nft", "add", "chain", "inet", "cut", hook, f"{{ type filter hook {hook} priority 0; policy accept; }}")
            sh("ip", "netns", "exec", ns, "nft", "add", "rule", "inet", "cut", hook, direction, inner, "drop")
        cut, cut_wall = time.monotonic(), time.time()
        last_seen, resumed = cut, None
        while time.monotonic() - cut < 90 and resumed is None:
            ids = set(stat().get(destination, ([], 0))[0])
            now = time.monotonic()
            if ids & first:
                last_seen = now
            if ids - first:
                resumed = now
            time.sleep(0.2)
        if resumed is None:
            raise SystemExit(f"bench: {name}: never taken over; see {folder}/w-{name}-*.log")
        lost = [line for line in open(f"{folder}/{holder}.log") if "the job's lease was lost" in line]
        stopped_at = iso(lost[0].split()[0]) - cut_wall if lost else None
        with sqlite3.connect(f"file:{folder}/{other}.sqlite?mode=ro", uri=True) as db:
            row = db.execute("SELECT at FROM job_events WHERE job_id = ? AND kind = 'job.running' ORDER BY id LIMIT 1", (name,)).fetchone()
        began_at = iso(row[0]) - cut_wall if row else None
        return {"stopped": stopped_at, "began": began_at, "gone": last_seen + 0.2 - cut, "resumed": resumed - cut}
    finally:
        for process in list(workers.values()) + helpers:
            process.kill()
            process.wait()
        publisher.kill()
        publisher.wait()
        sh("ip", "netns", "del", ns, check=False)
        for key in links:
            sh("ip", "link", "del", f"s{key}{index}h", check=False)
        sh(ctl, "delete_vhost", vhost, check=False)

for mode, label in (("kill", "kill -9"), ("term", "SIGTERM")):
    if mode not in modes.split():
        continue
    times = []
    for index in range(1, runs + 1):
        times.append(run(mode, index))
        print(f"takeover {label}: run {index}: destination flowing again after {times[-1]:.2f} s", flush=True)
    print(f"takeover {label}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, {runs} runs)", flush=True)
if "cut" in modes.split():
    bound = 4 + 3
    for index in range(1, runs + 1):
        r = run_cut(index)
        if r["stopped"] is None or r["began"] is None:
            raise SystemExit(f"bench: cut-{index}: the holder's stop or the other worker's start is not on record; see {folder}/w-cut-{index}-*")
        overlap = r["stopped"] - r["began"]
        verdict = (f"the copies overlapped {overlap:.2f} s" if overlap > 0
                   else f"no overlap: the other began {-overlap:.2f} s after the holder stopped")
        print(f"takeover partition (heartbeat 4 s, network namespace): run {index}: the holder stopped its copy "
              f"{r['stopped']:.2f} s after the cut (its publisher gone from the destination by {r['gone']:.2f} s); the other worker "
              f"recorded the job running {r['began']:.2f} s after it and published at {r['resumed']:.2f} s; {verdict} "
              f"(bound: heartbeat + 3 = {bound} s)", flush=True)
PY
  echo "== takeover: the broker's cost of leases: N holders renewing a 3 s claim every second for 30 s (pika, one connection)"
  local pid
  pid=$("$dir/rabbitmq/rabbitmqctl" eval 'list_to_integer(os:getpid()).' | tr -dc '0-9')
  for leases in 100 300; do
    /usr/bin/python3 - "$(head -n 1 "$dir/amqp-url")" "$pid" "$leases" <<'PY'
import os, sys, time, pika
url, pid, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ticks = os.sysconf("SC_CLK_TCK")
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks
connection = pika.BlockingConnection(pika.URLParameters(url))
channel = connection.channel()
channel.confirm_delivery()
held = {}
def arrived(ch, method, properties, body):
    queue = properties.headers["q"]
    if queue in held:
        ch.basic_ack(held[queue])
    held[queue] = method.delivery_tag
queues = [f"bench.lease.{i}" for i in range(count)]
for queue in queues:
    channel.queue_declare(queue, durable=True, arguments={"x-dead-letter-exchange": "", "x-dead-letter-routing-key": "bench.dead", "x-expires": 600000})
    channel.basic_consume(queue, arrived, exclusive=True)
body = b'{"id": "bench", "input": {"url": "rtmp://example/live/key"}, "outputs": ["rtmp://example/live/out"]}'
published, start, before = 0, time.monotonic(), cpu()
while time.monotonic() - start < 30:
    second = time.monotonic()
    for queue in queues:
        channel.basic_publish("", queue, body, pika.BasicProperties(delivery_mode=2, expiration="3000", headers={"q": queue}))
        published += 1
    while (left := second + 1 - time.monotonic()) > 0:
        connection.process_data_events(time_limit=left)
elapsed, used = time.monotonic() - start, cpu() - before
print(f"{count} leases: {published / elapsed:.0f} claims/s (each a confirmed persistent publish, a delivery and an ack); "
      f"broker CPU {100 * used / elapsed:.1f}% of one core")
for queue in queues:
    channel.queue_delete(queue)
connection.close()
PY
  done
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
