#!/usr/bin/env python3
"""Hostile RTMP peers against a listener (an ingest port), one attack per mode, printing what the server answered.

usage: rtmp-hostile.py [options] HOST PORT MODE [MODE ...]

Modes (`all` runs every one, in this order):
  random            random bytes instead of a handshake
  chunk-size-zero   a valid handshake, then Set Chunk Size 0, then a connect command
  chunk-size-huge   a valid handshake, then Set Chunk Size 2^31 (the top bit the spec reserves), then a connect
  big-message       a valid handshake, then a chunk message header type 0 claiming a 16 MB video message,
                    and one chunk of it
  wrong-key         a full publisher: connect / releaseStream / FCPublish / createStream / publish with --app and
                    --key (a key the server should refuse with NetStream.Publish.BadName)
  slowloris         --connections connections, each sending C0 and then one byte of C1 every --interval seconds
  idle              --connections connections that never send a byte
Each connection is closed after --wait seconds of silence from the server (slowloris and idle: after --duration).

One line per mode: `hostile MODE: ...` with what the server sent (bytes, the handshake's S0 version, the
commands and onStatus codes it answered) and how the connection ended (closed by the server, reset, still
open when we closed it, or refused at connect). Exit status 0 when every attack ran (whatever the server did),
2 on a usage error. Python 3 standard library only.
"""
import argparse
import os
import random
import socket
import struct
import sys
import threading
import time

HANDSHAKE_SIZE = 1536
MODES = ["random", "chunk-size-zero", "chunk-size-huge", "big-message", "wrong-key", "slowloris", "idle"]


# AMF0 (the command encoding of RTMP 1.0), only the markers commands use.
def amf_string(text):
    data = text.encode()
    return b"\x02" + struct.pack(">H", len(data)) + data


def amf_number(value):
    return b"\x00" + struct.pack(">d", value)


def amf_object(fields):
    out = b"\x03"
    for key, value in fields.items():
        name = key.encode()
        out += struct.pack(">H", len(name)) + name + value
    return out + b"\x00\x00\x09"


AMF_NULL = b"\x05"


def amf_decode(data):
    """Decodes a sequence of AMF0 values; stops quietly at anything it does not know (it is only for printing)."""
    values, offset = [], 0

    def value(at):
        marker = data[at]
        at += 1
        if marker == 0x00:
            return struct.unpack_from(">d", data, at)[0], at + 8
        if marker == 0x01:
            return data[at] != 0, at + 1
        if marker == 0x02:
            (length,) = struct.unpack_from(">H", data, at)
            return data[at + 2:at + 2 + length].decode(errors="replace"), at + 2 + length
        if marker in (0x03, 0x08):
            if marker == 0x08:
                at += 4
            result = {}
            while at + 3 <= len(data):
                (length,) = struct.unpack_from(">H", data, at)
                if length == 0 and data[at + 2] == 0x09:
                    return result, at + 3
                key = data[at + 2:at + 2 + length].decode(errors="replace")
                result[key], at = value(at + 2 + length)
            raise ValueError("object without end")
        if marker in (0x05, 0x06):
            return None, at
        raise ValueError(f"AMF0 marker {marker}")

    try:
        while offset < len(data):
            item, offset = value(offset)
            values.append(item)
    except (ValueError, IndexError, struct.error):
        pass
    return values


class Connection:
    """One TCP connection speaking just enough RTMP: the simple handshake, chunked messages both ways."""

    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.received = 0
        self.buffer = b""
        self.in_chunk_size = 128
        self.out_chunk_size = 128
        self.streams = {}  # chunk stream ID → [timestamp, length, type, message stream ID, partial payload]
        self.ended = None

    def send(self, data):
        self.sock.sendall(data)

    def read_some(self):
        """Reads what is there; returns False once the server closed or reset the connection, or went silent."""
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return False
        except ConnectionResetError:
            self.ended = "reset by the server"
            return False
        except OSError as error:
            self.ended = f"ended ({error.strerror or error})"
            return False
        if not chunk:
            self.ended = "closed by the server"
            return False
        self.received += len(chunk)
        self.buffer += chunk
        return True

    def read_exactly(self, count):
        while len(self.buffer) < count:
            if not self.read_some():
                return None
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def handshake(self):
        """C0 C1 → S0 S1 S2 → C2 (S1 echoed). Returns S0's version, or None when the server did not answer."""
        c1 = struct.pack(">II", int(time.monotonic() * 1000) & 0xFFFFFFFF, 0) + os.urandom(HANDSHAKE_SIZE - 8)
        self.send(b"\x03" + c1)
        s0s1 = self.read_exactly(1 + HANDSHAKE_SIZE)
        if s0s1 is None:
            return None
        if self.read_exactly(HANDSHAKE_SIZE) is None:
            return None
        self.send(s0s1[1:])
        return s0s1[0]

    def message(self, csid, type_id, stream_id, payload, timestamp=0):
        """A chunk message header type 0, then type 3 continuation chunks at our outgoing chunk size."""
        out = bytes([csid & 0x3F]) + struct.pack(">I", timestamp)[1:] + struct.pack(">I", len(payload))[1:]
        out += bytes([type_id]) + struct.pack("<I", stream_id)
        for start in range(0, max(len(payload), 1), self.out_chunk_size):
            if start:
                out += bytes([0xC0 | (csid & 0x3F)])
            out += payload[start:start + self.out_chunk_size]
        self.send(out)

    def command(self, name, transaction, *args, stream_id=0, csid=3):
        self.message(csid, 20, stream_id, amf_string(name) + amf_number(transaction) + b"".join(args))

    def next_message(self):
        """The next whole message (type, stream ID, payload), or None when the connection ended or went silent."""
        while True:
            header = self.read_exactly(1)
            if header is None:
                return None
            fmt, csid = header[0] >> 6, header[0] & 0x3F
            if csid == 0:
                extra = self.read_exactly(1)
                if extra is None:
                    return None
                csid = 64 + extra[0]
            elif csid == 1:
                extra = self.read_exactly(2)
                if extra is None:
                    return None
                csid = 64 + extra[0] + extra[1] * 256
            state = self.streams.setdefault(csid, [0, 0, 0, 0, b""])
            size = {0: 11, 1: 7, 2: 3, 3: 0}[fmt]
            fields = self.read_exactly(size) if size else b""
            if fields is None:
                return None
            if size:
                stamp = int.from_bytes(fields[0:3], "big")
                if fmt <= 1:
                    state[1] = int.from_bytes(fields[3:6], "big")
                    state[2] = fields[6]
                if fmt == 0:
                    state[3] = struct.unpack("<I", fields[7:11])[0]
                if stamp == 0xFFFFFF and self.read_exactly(4) is None:
                    return None
            elif state[0] == 0xFFFFFF and self.read_exactly(4) is None:
                return None
            need = min(self.in_chunk_size, state[1] - len(state[4]))
            body = self.read_exactly(need)
            if body is None:
                return None
            state[4] += body
            if len(state[4]) >= state[1]:
                payload, state[4] = state[4], b""
                if state[2] == 1 and len(payload) >= 4:
                    self.in_chunk_size = max(1, struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF)
                return state[2], state[3], payload

    def describe_messages(self, until=None):
        """Reads messages until `until(type, values)` is true or the server stops; names what it said."""
        said = []
        while True:
            message = self.next_message()
            if message is None:
                return said, None
            type_id, _, payload = message
            if type_id == 20:
                values = amf_decode(payload)
                name = values[0] if values and isinstance(values[0], str) else "?"
                codes = [v.get("code") for v in values if isinstance(v, dict) and "code" in v]
                said.append(f"{name}" + (f" {codes[0]}" if codes else ""))
                if until and until(values):
                    return said, values
            else:
                said.append({1: "SetChunkSize", 3: "Acknowledgement", 4: "UserControl", 5: "WindowAckSize",
                             6: "SetPeerBandwidth"}.get(type_id, f"type{type_id}"))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def ending(connection):
    return connection.ended or "still open when we closed it"


def connect_command(app, tc_url):
    return amf_object({"app": amf_string(app), "type": amf_string("nonprivate"),
                       "flashVer": amf_string("FMLE/3.0 (compatible; rtmp-hostile)"), "tcUrl": amf_string(tc_url)})


def attack_random(args):
    rng = random.Random(args.seed)
    connection = Connection(args.host, args.port, args.wait)
    # Never a valid C0 (version 3): random bytes, not a lucky handshake.
    payload = bytes([rng.choice([b for b in range(256) if b != 3])]) + bytes(rng.getrandbits(8) for _ in range(args.bytes - 1))
    try:
        connection.send(payload)
    except OSError as error:
        connection.ended = f"ended while we sent ({error.strerror or error})"
    while connection.ended is None and connection.read_some():
        pass
    first = connection.buffer[:1].hex() or "-"
    connection.close()
    return f"sent {len(payload)} random bytes; server sent {connection.received} bytes (first byte {first}); {ending(connection)}"


def after_handshake(args, attack):
    connection = Connection(args.host, args.port, args.wait)
    version = connection.handshake()
    if version is None:
        result = f"no handshake answer ({connection.received} bytes); {ending(connection)}"
    else:
        try:
            detail = attack(connection)
        except OSError as error:
            connection.ended = connection.ended or f"ended while we sent ({error.strerror or error})"
            detail = "the server stopped reading"
        said, _ = connection.describe_messages()
        result = f"handshake S0 version {version}; {detail}; server then sent {', '.join(said) or 'nothing'}; {ending(connection)}"
    connection.close()
    return result


def attack_chunk_size(args, size):
    def attack(connection):
        connection.message(2, 1, 0, struct.pack(">I", size))
        # A server that took the size would now read the connect in chunks of it.
        connection.out_chunk_size = max(1, min(size, 1 << 20))
        connection.command("connect", 1, connect_command(args.app, f"rtmp://{args.host}:{args.port}/{args.app}"))
        return f"sent Set Chunk Size {size} and a connect"
    return after_handshake(args, attack)


def attack_big_message(args):
    def attack(connection):
        claimed = 0xFFFFFF  # the largest length a chunk message header can carry: 16 MB
        header = bytes([6]) + b"\x00\x00\x00" + claimed.to_bytes(3, "big") + bytes([9]) + struct.pack("<I", 1)
        connection.send(header + os.urandom(128))
        return f"sent a chunk message header type 0 claiming a {claimed}-byte video message and 128 bytes of it"
    return after_handshake(args, attack)


def attack_wrong_key(args):
    connection = Connection(args.host, args.port, args.wait)
    version = connection.handshake()
    if version is None:
        connection.close()
        return f"no handshake answer; {ending(connection)}"
    said = []
    try:
        connection.command("connect", 1, connect_command(args.app, f"rtmp://{args.host}:{args.port}/{args.app}"))
        heard, values = connection.describe_messages(until=lambda v: v and v[0] in ("_result", "_error"))
        said += heard
        if values and values[0] == "_result":
            connection.command("releaseStream", 2, AMF_NULL, amf_string(args.key))
            connection.command("FCPublish", 3, AMF_NULL, amf_string(args.key))
            connection.command("createStream", 4, AMF_NULL)
            heard, values = connection.describe_messages(
                until=lambda v: v and v[0] in ("_result", "_error") and len(v) > 1 and v[1] == 4)
            said += heard
            stream_id = int(values[3]) if values and values[0] == "_result" and len(values) > 3 and isinstance(values[3], float) else 1
            connection.command("publish", 5, AMF_NULL, amf_string(args.key), amf_string("live"), stream_id=stream_id, csid=8)
            heard, _ = connection.describe_messages()
            said += heard
    except OSError as error:
        connection.ended = connection.ended or f"ended while we sent ({error.strerror or error})"
    connection.close()
    return f"handshake S0 version {version}; published to app '{args.app}' with a wrong key; server sent {', '.join(said) or 'nothing'}; {ending(connection)}"


def hold(args, trickle):
    """--connections connections held for --duration; `trickle` sends C0 then one byte of C1 per --interval."""
    outcomes, lock = [], threading.Lock()

    def one(index):
        try:
            sock = socket.create_connection((args.host, args.port), timeout=5)
        except ConnectionRefusedError:
            outcome = "refused at connect"
        except OSError as error:
            outcome = f"failed at connect ({error.strerror or error})"
        else:
            outcome, received, sent = None, 0, 0
            sock.settimeout(0.2)
            end = time.monotonic() + args.duration
            next_byte = time.monotonic()
            while time.monotonic() < end and outcome is None:
                if trickle and time.monotonic() >= next_byte:
                    try:
                        sock.send(b"\x03" if sent == 0 else os.urandom(1))
                        sent += 1
                    except OSError as error:
                        outcome = f"ended while we sent ({error.strerror or error})"
                        break
                    next_byte += args.interval
                try:
                    data = sock.recv(65536)
                    if not data:
                        outcome = f"closed by the server after {args.duration - (end - time.monotonic()):.1f} s"
                    received += len(data)
                except socket.timeout:
                    pass
                except OSError as error:
                    outcome = f"reset by the server ({error.strerror or error})"
            sock.close()
            outcome = (outcome or "still open when we closed it") + (f", server sent {received} bytes" if received else "")
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(args.connections)]
    for thread in threads:
        thread.start()
        time.sleep(0.01)
    for thread in threads:
        thread.join()
    counts = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    kind = f"one byte every {args.interval:g} s" if trickle else "never a byte"
    return f"{args.connections} connections, {kind}, for {args.duration:g} s: " + "; ".join(f"{n}x {o}" for o, n in sorted(counts.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("modes", nargs="+", choices=MODES + ["all"], metavar="MODE")
    parser.add_argument("--app", default="live", help="application for the connects (default live)")
    parser.add_argument("--key", default="not-the-key", help="stream key of the wrong-key publish")
    parser.add_argument("--bytes", type=int, default=4096, help="random bytes to send (default 4096)")
    parser.add_argument("--seed", type=int, default=12, help="seed of the random bytes")
    parser.add_argument("--wait", type=float, default=2.0, help="seconds of server silence before we close (default 2)")
    parser.add_argument("--connections", type=int, default=20, help="slowloris and idle connections (default 20)")
    parser.add_argument("--interval", type=float, default=2.0, help="slowloris: seconds between bytes (default 2)")
    parser.add_argument("--duration", type=float, default=10.0, help="slowloris and idle: seconds to hold (default 10)")
    args = parser.parse_args()
    modes = MODES if "all" in args.modes else args.modes
    attacks = {
        "random": attack_random,
        "chunk-size-zero": lambda a: attack_chunk_size(a, 0),
        "chunk-size-huge": lambda a: attack_chunk_size(a, 1 << 31),
        "big-message": attack_big_message,
        "wrong-key": attack_wrong_key,
        "slowloris": lambda a: hold(a, trickle=True),
        "idle": lambda a: hold(a, trickle=False),
    }
    for mode in modes:
        try:
            result = attacks[mode](args)
        except ConnectionRefusedError:
            result = "refused at connect"
        except OSError as error:
            result = f"failed: {error.strerror or error}"
        print(f"hostile {mode}: {result}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
