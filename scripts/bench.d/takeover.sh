# Sourced by scripts/bench: `scripts/bench takeover [RUNS [kill|term]]` (default 5 runs of each). How long a live restream is gone from its
# destination when the worker that runs it goes: two `sluice worker`s (default lease timing) on a private RabbitMQ,
# a looping 1x publisher into a private nginx-rtmp, one restream job to another stream name. Once the destination has
# flowed for 3-4 s (a random point in the lease's renewal), the holder gets kill -9 (RUNS times) or SIGTERM (RUNS
# times); nginx-rtmp's statistics page, polled every 0.2 s, says when a new publisher sends bytes to the destination.
# Prints each time-to-flowing and the median of each. Each run has a vhost of its own, so nothing of one reaches the next.
# Then the broker's side of leases: 100 and 300 holders renewing claims as a worker does, claims/s and the broker's CPU.
bench_takeover() {
  local runs="${1:-5}" modes="${2:-kill term}"
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

for mode, label in (("kill", "kill -9"), ("term", "SIGTERM")):
    if mode not in modes.split():
        continue
    times = []
    for index in range(1, runs + 1):
        times.append(run(mode, index))
        print(f"takeover {label}: run {index}: destination flowing again after {times[-1]:.2f} s", flush=True)
    print(f"takeover {label}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, {runs} runs)", flush=True)
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
