#!/usr/bin/env python3
"""Hostile SRT publishers for the tests: what a listen job's shared SRT port must survive.

    srt-hostile.py --port P --key K [--ts FILE] [--seconds S] MODE

MODE is one of
  garbage     random bytes as the stream (srt-live-transmit sends them as TS would be)
  truncated   FILE with one packet cut out of the middle of every tenth video PES
  pmt         FILE with its PMT changed every second (a new version that drops, then restores, the audio stream)
  flood       FILE sent at ten times its bitrate
  handshakes  1,000 SRT handshakes a second asking for streamid K (induction, then the conclusion with the cookie the
              listener gave), each its own socket id; nothing is published
Prints one line on standard error, `hostile MODE: ...`, saying what was sent and, for handshakes, how the listener answered.
The media modes publish through `srt-live-transmit` (srt-tools) reading stdin, paced by FILE's own duration.
"""
import argparse
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

TS = 188
CHUNK = 7 * TS  # 1,316 bytes: the TS-over-SRT payload


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def packets(data):
    return [bytearray(data[i:i + TS]) for i in range(0, len(data) - TS + 1, TS) if data[i] == 0x47]


def pid(packet):
    return ((packet[1] & 0x1F) << 8) | packet[2]


def pusi(packet):
    return bool(packet[1] & 0x40)


def payload_offset(packet):
    control = (packet[3] >> 4) & 0x3
    offset = 4
    if control in (2, 3):
        offset += 1 + packet[4]
    return offset


def find_pmt(pkts):
    """The PMT PID, its video PID and its first audio PID, from the PAT and PMT of `pkts`."""
    pmt_pid = None
    for p in pkts:
        if pid(p) == 0 and pusi(p):
            o = payload_offset(p)
            o += 1 + p[o]  # pointer_field
            pmt_pid = ((p[o + 10] & 0x1F) << 8) | p[o + 11]
            break
    for p in pkts:
        if pid(p) == pmt_pid and pusi(p):
            o = payload_offset(p)
            o += 1 + p[o]
            section_length = ((p[o + 1] & 0x0F) << 8) | p[o + 2]
            info_length = ((p[o + 10] & 0x0F) << 8) | p[o + 11]
            i = o + 12 + info_length
            end = o + 3 + section_length - 4
            video = audio = None
            while i < end:
                stream_type = p[i]
                es = ((p[i + 1] & 0x1F) << 8) | p[i + 2]
                if stream_type in (0x1B, 0x24) and video is None:
                    video = es
                elif stream_type in (0x0F, 0x11, 0x03, 0x04) and audio is None:
                    audio = es
                i += 5 + (((p[i + 3] & 0x0F) << 8) | p[i + 4])
            return pmt_pid, video, audio
    raise SystemExit("srt-hostile: no PAT and PMT in the TS")


def changed_pmt(packet, version, drop_audio_pid):
    """The PMT packet with `version`, and without the stream `drop_audio_pid` when given (CRC recomputed)."""
    p = bytearray(packet)
    o = payload_offset(p)
    o += 1 + p[o]
    section_length = ((p[o + 1] & 0x0F) << 8) | p[o + 2]
    section = bytearray(p[o:o + 3 + section_length - 4])
    section[5] = (section[5] & 0xC1) | ((version & 0x1F) << 1)
    if drop_audio_pid is not None:
        info_length = ((section[10] & 0x0F) << 8) | section[11]
        i = 12 + info_length
        while i < len(section):
            es = ((section[i + 1] & 0x1F) << 8) | section[i + 2]
            length = 5 + (((section[i + 3] & 0x0F) << 8) | section[i + 4])
            if es == drop_audio_pid:
                del section[i:i + length]
                break
            i += length
        new_length = len(section) - 3 + 4
        section[1] = (section[1] & 0xF0) | (new_length >> 8)
        section[2] = new_length & 0xFF
    section += struct.pack(">I", crc32_mpeg2(section))
    body = bytes(section) + b"\xff" * (TS - o - len(section))
    return bytes(p[:o]) + body[:TS - o]


def publish(args, data, rate):
    """Sends `data` to the job through srt-live-transmit at `rate` bytes a second, once it is connected."""
    # 20 s for the handshake (libsrt's default is 3): beside the flood of handshakes, on a loaded machine (CI's
    # ThreadSanitizer stage), the cut-PES and changing-PMT publishers took longer than that to connect.
    url = f"srt://127.0.0.1:{args.port}?streamid=publish:live/{args.key}&latency=200&conntimeo=20000"
    child = subprocess.Popen(["srt-live-transmit", "-a", "no", "-chunk", str(CHUNK), "file://con", url],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # srt-live-transmit reads its input while it connects and throws away what it read: a publisher that is slow to
    # connect would send only the tail of the file (or nothing). Nothing is written until it says it is connected.
    connected = threading.Event()
    said = []

    def watch():
        for raw in child.stderr:
            line = raw.decode(errors="replace").strip()
            said.append(line)
            if "connected" in line:
                connected.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    waited = time.monotonic()
    if not connected.wait(timeout=30):
        child.kill()
        child.wait()
        return 0, time.monotonic() - waited, f"srt-live-transmit never connected in 30 s: {' / '.join(said)}"
    took_to_connect = time.monotonic() - waited
    started = time.monotonic()
    sent = 0
    try:
        for i in range(0, len(data), CHUNK):
            due = started + sent / rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            child.stdin.write(data[i:i + CHUNK])
            child.stdin.flush()
            sent += len(data[i:i + CHUNK])
        child.stdin.close()
    except BrokenPipeError:
        pass
    # It does not exit at the end of its input: a second for what it holds to go out, then SIGINT, which it takes as
    # the end (it closes the connection); killed only if that does not end it.
    time.sleep(1)
    child.send_signal(signal.SIGINT)
    try:
        child.wait(timeout=10)
        ended = f"srt-live-transmit exited {child.returncode} on SIGINT"
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        ended = "srt-live-transmit killed 10 s after SIGINT"
    return sent, time.monotonic() - started, f"connected in {took_to_connect:.1f} s; {ended}"


def media(args):
    source = open(args.ts, "rb").read()
    pkts = packets(source)
    seconds = args.seconds
    rate = len(source) / seconds
    note = ""
    if args.mode == "garbage":
        data = os.urandom(int(rate * seconds))
    elif args.mode == "truncated":
        _, video, _ = find_pmt(pkts)
        kept, cut, pes, into = [], 0, 0, 0
        for p in pkts:
            if pid(p) == video:
                if pusi(p):
                    pes, into = pes + 1, 0
                else:
                    into += 1
                    if pes % 10 == 0 and into == 2:
                        cut += 1
                        continue
            kept.append(bytes(p))
        data = b"".join(kept)
        note = f", {cut} video PES cut short"
    elif args.mode == "pmt":
        pmt_pid, _, audio = find_pmt(pkts)
        per_second = len(pkts) / seconds
        out, changes = [], 0
        for index, p in enumerate(pkts):
            if pid(p) == pmt_pid and pusi(p):
                second = int(index / per_second)
                out.append(changed_pmt(p, second % 32, audio if second % 2 == 1 else None))
                changes += 1
            else:
                out.append(bytes(p))
        data = b"".join(out)
        note = f", the PMT changed every second ({int(seconds)} versions)"
    elif args.mode == "flood":
        data = source
        rate *= 10
        note = ", at ten times its bitrate"
    else:
        raise SystemExit(f"srt-hostile: unknown mode {args.mode}")
    sent, took, ended = publish(args, data, rate)
    print(f"hostile {args.mode}: sent {sent} bytes in {took:.1f} s{note}; {ended}", file=sys.stderr, flush=True)


def handshake(kind, socket_id, cookie, stream_id=None):
    """An SRT handshake control packet (HSv4 induction, or HSv5 conclusion with HSREQ and the streamid)."""
    header = struct.pack(">IIII", 0x80000000, 0, int(time.monotonic() * 1e6) & 0xFFFFFFFF, 0)
    if kind == "induction":
        body = struct.pack(">IHHIIIiII", 4, 0, 2, random.getrandbits(31), 1500, 8192, 1, socket_id, 0)
        return header + body + socket.inet_aton("127.0.0.1") + b"\0" * 12
    # Conclusion: version 5, no encryption, extensions HSREQ | CONFIG.
    body = struct.pack(">IHHIIIiII", 5, 0, 0x1 | 0x4, random.getrandbits(31), 1500, 8192, -1, socket_id, cookie)
    body += socket.inet_aton("127.0.0.1") + b"\0" * 12
    # SRT_CMD_HSREQ: version 1.5.1, flags TSBPDSND|TSBPDRCV|TLPKTDROP|NAKREPORT|REXMITFLG, 120 ms each way.
    body += struct.pack(">HHIIHH", 1, 3, 0x010501, 0x01 | 0x02 | 0x08 | 0x10 | 0x40, 120, 120)
    # SRT_CMD_SID: the streamid, each 32-bit word with its bytes reversed (as libsrt writes it).
    raw = stream_id.encode()
    raw += b"\0" * (-len(raw) % 4)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    body += struct.pack(">HH", 5, len(words) // 4) + words
    return header + body


def handshakes(args):
    """1,000 handshakes a second for `seconds`: each an induction, then its conclusion with the cookie."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.0)
    target = ("127.0.0.1", args.port)
    stream_id = f"publish:live/{args.key}"
    answers = {"cookie": 0, "rejected": 0, "accepted": 0}
    sent = 0
    started = time.monotonic()
    total = int(1000 * args.seconds)

    def drain():
        while True:
            try:
                reply, _ = sock.recvfrom(2048)
            except BlockingIOError:
                return
            if len(reply) < 48 or not reply[0] & 0x80:
                continue
            kind = struct.unpack(">i", reply[36:40])[0]
            socket_id, cookie = struct.unpack(">II", reply[40:48])
            if kind == 1:
                answers["cookie"] += 1
                sock.sendto(handshake("conclusion", socket_id_of[0], cookie, stream_id), target)
            elif kind == -1:
                answers["accepted"] += 1
            elif kind >= 1000 or 2 <= kind < 1000:
                answers["rejected"] += 1

    socket_id_of = [0]
    # Ten every 10 ms: the rate, without a loop that keeps a core busy beside the other suites.
    for index in range(total):
        if index % 10 == 0:
            pause = started + index / 1000 - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        socket_id_of[0] = random.getrandbits(30) + 1
        sock.sendto(handshake("induction", socket_id_of[0], 0), target)
        sent += 1
        drain()
    end = time.monotonic() + 1
    while time.monotonic() < end:
        drain()
        time.sleep(0.01)
    took = time.monotonic() - started
    print(f"hostile handshakes: {sent} inductions in {took:.1f} s; cookies {answers['cookie']}, "
          f"rejected {answers['rejected']}, accepted {answers['accepted']}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--ts", help="the TS the media modes start from")
    parser.add_argument("--seconds", type=float, default=4, help="the TS's duration; for handshakes, how long to send")
    parser.add_argument("mode")
    args = parser.parse_args()
    # A test process under ThreadSanitizer hands its children a mask that blocks most signals, and srt-live-transmit
    # would inherit it: the SIGINT that ends its connection cleanly would never arrive.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    if args.mode == "handshakes":
        handshakes(args)
    elif args.ts is None:
        sys.exit("srt-hostile: --ts is needed for " + args.mode)
    else:
        media(args)


if __name__ == "__main__":
    main()
