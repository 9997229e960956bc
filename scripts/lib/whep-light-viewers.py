#!/usr/bin/env python3
"""N WHEP viewers of one URL in one thread: the cheap load of `scripts/bench whep`. Each viewer is what a browser's
transport does for a recvonly H.264 + Opus session and nothing more: its own UDP socket on 127.0.0.1; full ICE as the
controlling agent (STUN Binding requests with the session's credentials: USERNAME, MESSAGE-INTEGRITY, FINGERPRINT,
PRIORITY, ICE-CONTROLLING, USE-CANDIDATE; again every 5 s for consent, RFC 7675); the DTLS client (OpenSSL through
pyOpenSSL; its own self-signed ECDSA certificate, whose SHA-256 fingerprint is in its offer, and the server's
certificate checked against the answer's fingerprint); SRTP keys from the handshake (RFC 5764) and every packet
received decrypted and authenticated (libsrtp through pylibsrtp); an RTCP receiver report each second (RFC 3550: the
extended highest sequence number, losses, LSR/DLSR from the server's sender reports), protected. No jitter buffer,
no depayloading, no decoding; no NACK or PLI is sent. Video frames are counted by the RTP marker bit.

    python3 scripts/lib/whep-light-viewers.py URL --count N [--token T] [--measure NAME=PID]... [--warmup S]
                                              [--window S] [--spacing S]

The viewers are made one after another (--spacing, default 0.05 s, between two POSTs; the event loop runs meanwhile),
each: offer (its one host candidate; no trickle), POST, answer, ICE, DTLS; a POST not answered within 10 s fails
that viewer and the next is made. The loop waits on each POST, so a viewer's 30 s to connect count from its answer or
the last POST's end, whichever is later. Then, once each has connected or failed
(30 s at most after its answer), a warm-up until every connected viewer's bytes grow (--warmup, default 60 s, at most;
then 5 s more) and the measured window (--window, default 30 s), in which the --measure processes and this one
("viewers") are read from /proc: CPU (utime + stime of every thread) as % of one core over the window, RSS, RssAnon
and threads at its end. Then every session is DELETEd (5 s each at most; after three unanswered in a row the rest are
"not sent"). One line of JSON, the same fields as whep-viewers.py's
(webrtcbin) plus "srtp_profile", "video_fps" and "unprotect_failures". Exit 1: no viewer connected; 2: the server
cannot be reached. Needs pyOpenSSL (DTLS_METHOD, export_keying_material), pylibsrtp and cryptography: aiortc's."""
import argparse
import binascii
import datetime
import faulthandler
import hashlib
import hmac
import http.client
import json
import os
import secrets
import selectors
import signal
import socket
import struct
import sys
import time
import urllib.parse
import zlib

from whep_measure import delete_all, measure, sessions, spread, total_bytes, warm_up

import pylibsrtp
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from OpenSSL import SSL, crypto

CONNECT_TIMEOUT = 30
HTTP_TIMEOUT = 10
VIDEO_PT, AUDIO_PT = 102, 111
MAGIC = 0x2112A442
# (OpenSSL name, libsrtp profile, key length, salt length): a browser's two, the server picks.
SRTP_PROFILES = {
    b"SRTP_AEAD_AES_128_GCM": (pylibsrtp.Policy.SRTP_PROFILE_AEAD_AES_128_GCM, 16, 12),
    b"SRTP_AES128_CM_SHA1_80": (pylibsrtp.Policy.SRTP_PROFILE_AES128_CM_SHA1_80, 16, 14),
}


def certificate():
    """A self-signed ECDSA P-256 certificate for every viewer (as a browser keeps one), and its SHA-256 fingerprint."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, binascii.hexlify(os.urandom(8)).decode())])
    now = datetime.datetime.now(tz=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    return key, cert, fingerprint(cert.public_bytes(serialization.Encoding.DER))


def fingerprint(der):
    return ":".join(f"{byte:02X}" for byte in hashlib.sha256(der).digest())


def ssl_context(key, cert):
    context = SSL.Context(SSL.DTLS_METHOD)
    context.set_options(SSL.OP_NO_TICKET)
    # The server's certificate is self-signed: it is judged by the answer's fingerprint once the handshake is done.
    context.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, lambda *_: True)
    context.use_certificate(crypto.X509.from_cryptography(cert))
    context.use_privatekey(crypto.PKey.from_cryptography_key(key))
    context.set_tlsext_use_srtp(b":".join(SRTP_PROFILES))
    return context


def stun_attribute(kind, value):
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def binding_request(transaction, username, password, priority, tiebreaker):
    """RFC 8445 §7.1.2 / RFC 5389: a Binding request from the controlling agent, nominating (USE-CANDIDATE)."""
    body = (stun_attribute(0x0006, username.encode()) + stun_attribute(0x0024, struct.pack("!I", priority))
            + stun_attribute(0x802A, tiebreaker) + stun_attribute(0x0025, b""))
    # MESSAGE-INTEGRITY over the message with its length counting the attribute itself (24 bytes).
    header = struct.pack("!HHI", 0x0001, len(body) + 24, MAGIC) + transaction
    integrity = hmac.new(password.encode(), header + body, hashlib.sha1).digest()
    body += stun_attribute(0x0008, integrity)
    header = struct.pack("!HHI", 0x0001, len(body) + 8, MAGIC) + transaction
    crc = (zlib.crc32(header + body) ^ 0x5354554E) & 0xFFFFFFFF
    return header + body + stun_attribute(0x8028, struct.pack("!I", crc))


def binding_success_ok(data, transaction, password):
    """Whether a datagram is a Binding success response to `transaction` with a valid MESSAGE-INTEGRITY."""
    if len(data) < 20 or data[:2] != b"\x01\x01" or data[8:20] != transaction:
        return False
    offset = 20
    while offset + 4 <= len(data):
        kind, length = struct.unpack_from("!HH", data, offset)
        if kind == 0x0008 and length == 20:
            header = data[:2] + struct.pack("!H", offset + 24 - 20) + data[4:20]
            expected = hmac.new(password.encode(), header + data[20:offset], hashlib.sha1).digest()
            return hmac.compare_digest(expected, data[offset + 4:offset + 24])
        offset += 4 + length + (-length % 4)
    return False


def offer_sdp(ufrag, password, fingerprint_text, port):
    session = ["v=0", f"o=- {secrets.randbits(62)} 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
               "a=msid-semantic: WMS"]
    transport = [f"a=ice-ufrag:{ufrag}", f"a=ice-pwd:{password}", "a=ice-options:trickle",
                 f"a=fingerprint:sha-256 {fingerprint_text}", "a=setup:actpass", "a=rtcp-mux", "a=rtcp-rsize",
                 f"a=candidate:1 1 udp 2130706431 127.0.0.1 {port} typ host", "a=end-of-candidates"]
    video = [f"m=video {port} UDP/TLS/RTP/SAVPF {VIDEO_PT}", "c=IN IP4 127.0.0.1", "a=mid:0", "a=recvonly",
             *transport, f"a=rtpmap:{VIDEO_PT} H264/90000", f"a=rtcp-fb:{VIDEO_PT} nack", f"a=rtcp-fb:{VIDEO_PT} nack pli",
             f"a=fmtp:{VIDEO_PT} level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"]
    audio = [f"m=audio {port} UDP/TLS/RTP/SAVPF {AUDIO_PT}", "c=IN IP4 127.0.0.1", "a=mid:1", "a=recvonly",
             *transport, f"a=rtpmap:{AUDIO_PT} opus/48000/2", f"a=fmtp:{AUDIO_PT} minptime=10;useinbandfec=1"]
    return "\r\n".join(session + video + audio) + "\r\n"


def parse_answer(text):
    """ice-ufrag, ice-pwd, the sha-256 fingerprint, setup, the first UDP host candidate, the kinds taken."""
    found = {"taken": set()}
    kind = None
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("m="):
            kind = line[2:].split()[0]
            if line.split()[1] != "0":
                found["taken"].add(kind)
        for name in ("ice-ufrag", "ice-pwd", "setup"):
            if line.startswith(f"a={name}:") and name not in found:
                found[name] = line.split(":", 1)[1].strip()
        if line.startswith("a=fingerprint:sha-256 ") and "fingerprint" not in found:
            found["fingerprint"] = line.split(" ", 1)[1].strip().upper()
        if line.startswith("a=candidate:") and "candidate" not in found:
            parts = line.split()
            if len(parts) >= 8 and parts[2].lower() == "udp" and ":" not in parts[4]:
                found["candidate"] = (parts[4], int(parts[5]))
    return found


def http_request(method, url, body=None, headers=None, timeout=HTTP_TIMEOUT):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(method, parts.path or "/", body=body.encode() if isinstance(body, str) else body,
                           headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read().decode("utf-8", errors="replace")
    finally:
        connection.close()


class Stream:
    """What one SSRC sent: for the counts and the receiver report."""
    __slots__ = ("packets", "octets", "frames", "base", "cycles", "highest", "expected_prior", "received_prior")

    def __init__(self, sequence):
        self.packets = self.octets = self.frames = self.cycles = 0
        self.base = self.highest = sequence
        self.expected_prior = self.received_prior = 0

    def add(self, sequence, size, marker):
        self.packets += 1
        self.octets += size
        self.frames += marker
        if sequence < self.highest and self.highest - sequence > 0x8000:
            self.cycles += 0x10000  # wrapped
        if (sequence - self.highest) & 0xFFFF < 0x8000:
            self.highest = sequence

    def report_block(self, ssrc, last_sr, now):
        extended = self.cycles + self.highest
        expected = extended - self.base + 1
        lost = max(0, expected - self.packets)
        expected_interval = expected - self.expected_prior
        received_interval = self.packets - self.received_prior
        self.expected_prior, self.received_prior = expected, self.packets
        lost_interval = expected_interval - received_interval
        fraction = (lost_interval << 8) // expected_interval if expected_interval > 0 and lost_interval > 0 else 0
        lsr, dlsr = 0, 0
        if last_sr is not None:
            lsr = last_sr[0]
            dlsr = int((now - last_sr[1]) * 65536) & 0xFFFFFFFF
        return struct.pack("!IB3sIIII", ssrc, min(fraction, 255), min(lost, 0x7FFFFF).to_bytes(3, "big"),
                           extended & 0xFFFFFFFF, 0, lsr, dlsr)


class Viewer:
    def __init__(self, index, loop, context, fingerprint_text):
        self.index, self.loop = index, loop
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.ufrag = secrets.token_hex(4)
        self.password = secrets.token_hex(12)
        self.tiebreaker = os.urandom(8)
        self.offer = offer_sdp(self.ufrag, self.password, fingerprint_text, self.port)
        self.ssl = SSL.Connection(context, None)
        self.ssl.set_connect_state()
        self.status = self.body = self.location = None
        self.answer = None
        self.remote = None
        self.answered_at = self.ice_at = self.connected_at = None
        self.problem = None
        self.transaction = None
        self.next_check = 0.0
        self.checks = 0
        self.handshake_done = False
        self.dtls_timer = None
        self.rx = self.tx = None
        self.srtp_profile = None
        self.streams = {}  # ssrc -> Stream
        self.kinds = {}  # ssrc -> "video" | "audio"
        self.sender_reports = {}  # ssrc -> (middle 32 bits of its NTP time, when it came)
        self.own_ssrc = secrets.randbits(32)
        self.next_report = 0.0
        self.unprotect_failures = 0
        self.closed = False
        self.post_s = None

    # -- signalling
    def post(self, url, token):
        headers = {"Content-Type": "application/sdp", **({"Authorization": f"Bearer {token}"} if token else {})}
        self.status, response_headers, body = http_request("POST", url, self.offer, headers)
        if self.status != 201:
            self.body = body.strip()
            self.problem = f"answered {self.status}"
            return
        location = next((value for name, value in response_headers if name.lower() == "location"), None)
        self.location = urllib.parse.urljoin(url, location) if location else None
        self.answer = parse_answer(body)
        self.answered_at = time.monotonic()
        missing = [name for name in ("ice-ufrag", "ice-pwd", "fingerprint", "candidate") if name not in self.answer]
        if missing:
            self.problem = f"the answer lacks {', '.join(missing)}"
            return
        if self.answer.get("setup") not in ("passive", None):
            self.problem = f"the answer's setup is {self.answer.get('setup')}: this viewer is only a DTLS client"
            return
        self.remote = self.answer["candidate"]
        self.loop.register(self.sock, selectors.EVENT_READ, self)

    def delete(self, token):
        if not self.location:
            return None
        try:
            status, _, _ = http_request("DELETE", self.location,
                                        headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=5)
            return status
        except (OSError, http.client.HTTPException) as error:
            return f"{error or type(error).__name__}"

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.loop.unregister(self.sock)
            except (KeyError, ValueError):
                pass
            self.sock.close()

    # -- the clock: ICE checks, DTLS retransmissions, consent, receiver reports
    def timers(self, now):
        if self.remote is None or self.problem or self.closed:
            return
        if self.ice_at is None:
            if now - max(self.answered_at, self.loop.last_post) > CONNECT_TIMEOUT:
                self.problem = f"ICE: no Binding success after {self.checks} checks in {CONNECT_TIMEOUT} s"
                return
            if now >= self.next_check:
                self.check(now, interval=0.1)
            return
        if now >= self.next_check:  # consent freshness
            self.check(now, interval=5.0)
        if not self.handshake_done:
            if now - max(self.answered_at, self.loop.last_post) > CONNECT_TIMEOUT:
                self.problem = f"DTLS: no handshake within {CONNECT_TIMEOUT} s"
                return
            if self.dtls_timer is not None and now >= self.dtls_timer:
                self.ssl.DTLSv1_handle_timeout()
                self.flush_dtls()
                self.arm_dtls_timer(now)
            return
        if now >= self.next_report:
            self.next_report = now + 1.0
            self.receiver_report(now)

    def check(self, now, interval):
        self.transaction = os.urandom(12)
        username = f"{self.answer['ice-ufrag']}:{self.ufrag}"
        priority = (110 << 24) | (65535 << 8) | 255  # a host candidate's, component 1
        self.send(binding_request(self.transaction, username, self.answer["ice-pwd"], priority, self.tiebreaker))
        self.checks += 1
        self.next_check = now + interval

    def send(self, data):
        try:
            self.sock.sendto(data, self.remote)
        except (BlockingIOError, InterruptedError):
            pass  # a full send buffer drops it, as a network would
        except OSError as error:
            if not self.problem:
                self.problem = f"send: {error}"

    def arm_dtls_timer(self, now):
        timeout = self.ssl.DTLSv1_get_timeout()
        self.dtls_timer = now + timeout if timeout is not None else None

    def flush_dtls(self):
        while True:
            try:
                data = self.ssl.bio_read(1500)
            except SSL.WantReadError:
                return
            except SSL.Error:
                return
            if not data:
                return
            self.send(data)

    def handshake(self, now):
        try:
            self.ssl.do_handshake()
        except SSL.WantReadError:
            self.flush_dtls()
            self.arm_dtls_timer(now)
            return
        except SSL.Error as error:
            self.flush_dtls()
            self.problem = f"DTLS: {error}"
            return
        self.flush_dtls()
        self.handshake_done = True
        self.dtls_timer = None
        peer = self.ssl.get_peer_certificate(as_cryptography=True)
        if peer is None or fingerprint(peer.public_bytes(serialization.Encoding.DER)) != self.answer["fingerprint"]:
            self.problem = "DTLS: the server's certificate does not match the answer's fingerprint"
            return
        name = self.ssl.get_selected_srtp_profile()
        if name not in SRTP_PROFILES:
            self.problem = f"DTLS: no SRTP profile negotiated ({name!r})"
            return
        profile, key_length, salt_length = SRTP_PROFILES[name]
        material = self.ssl.export_keying_material(b"EXTRACTOR-dtls_srtp", 2 * (key_length + salt_length))
        client_key = material[:key_length] + material[2 * key_length:2 * key_length + salt_length]
        server_key = (material[key_length:2 * key_length]
                      + material[2 * key_length + salt_length:2 * key_length + 2 * salt_length])
        rx = pylibsrtp.Policy(key=server_key, ssrc_type=pylibsrtp.Policy.SSRC_ANY_INBOUND, srtp_profile=profile)
        rx.window_size = 1024
        tx = pylibsrtp.Policy(key=client_key, ssrc_type=pylibsrtp.Policy.SSRC_ANY_OUTBOUND, srtp_profile=profile)
        self.rx, self.tx = pylibsrtp.Session(rx), pylibsrtp.Session(tx)
        self.srtp_profile = name.decode()
        self.connected_at = now
        self.next_report = now + 1.0

    # -- datagrams
    def readable(self):
        now = None
        while True:
            try:
                data, source = self.sock.recvfrom(2048)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if source != self.remote or not data:
                continue
            first = data[0]
            if 128 <= first < 192:
                if self.rx is None:
                    continue
                if 192 <= data[1] <= 223:
                    now = now or time.monotonic()
                    self.rtcp(data, now)
                    continue
                try:
                    packet = self.rx.unprotect(data)
                except pylibsrtp.Error:
                    self.unprotect_failures += 1
                    continue
                ssrc = int.from_bytes(packet[8:12], "big")
                stream = self.streams.get(ssrc)
                if stream is None:
                    stream = self.streams[ssrc] = Stream(int.from_bytes(packet[2:4], "big"))
                    self.kinds[ssrc] = "video" if packet[1] & 0x7F == VIDEO_PT else "audio"
                stream.add(int.from_bytes(packet[2:4], "big"), len(packet), packet[1] >> 7)
            elif 20 <= first < 64:
                self.ssl.bio_write(data)
                if not self.handshake_done:
                    self.handshake(now or time.monotonic())
                else:
                    try:
                        self.ssl.recv(1500)  # close_notify or a retransmitted flight
                    except SSL.ZeroReturnError:
                        self.problem = "DTLS close_notify from the server"
                    except SSL.Error:
                        pass
                    self.flush_dtls()
            elif first < 2 and self.transaction is not None and binding_success_ok(data, self.transaction, self.answer["ice-pwd"]):
                self.transaction = None
                if self.ice_at is None:
                    now = now or time.monotonic()
                    self.ice_at = now
                    self.next_check = now + 5.0
                    self.handshake(now)

    def rtcp(self, data, now):
        try:
            compound = self.rx.unprotect_rtcp(data)
        except pylibsrtp.Error:
            self.unprotect_failures += 1
            return
        offset = 0
        while offset + 8 <= len(compound):
            kind = compound[offset + 1]
            length = (int.from_bytes(compound[offset + 2:offset + 4], "big") + 1) * 4
            if kind == 200 and offset + 16 <= len(compound):  # a sender report: keep the middle of its NTP time
                ssrc, ntp = struct.unpack_from("!IQ", compound, offset + 4)
                self.sender_reports[ssrc] = ((ntp >> 16) & 0xFFFFFFFF, now)
            offset += length

    def receiver_report(self, now):
        blocks = [stream.report_block(ssrc, self.sender_reports.get(ssrc), now) for ssrc, stream in self.streams.items()][:31]
        words = 1 + 6 * len(blocks)
        report = struct.pack("!BBHI", 0x80 | len(blocks), 201, words, self.own_ssrc) + b"".join(blocks)
        try:
            self.send(self.tx.protect_rtcp(report))
        except pylibsrtp.Error:
            pass

    # -- counts
    def received(self):
        totals = {"video": [0, 0, 0], "audio": [0, 0, 0]}  # packets, bytes, frames (video: marker bits)
        for ssrc, stream in self.streams.items():
            entry = totals[self.kinds[ssrc]]
            entry[0] += stream.packets
            entry[1] += stream.octets
            entry[2] += stream.frames
        return totals

    def settled(self, now):
        if self.problem or self.answered_at is None:
            return True
        return self.connected_at is not None


class Loop:
    def __init__(self):
        self.selector = selectors.EpollSelector()
        self.viewers = []
        # When the last POST was answered (or timed out): a viewer's 30 s to connect count from its answer or this,
        # whichever is later, since no check is sent while a POST waits (the loop is this one thread).
        self.last_post = 0.0

    def register(self, sock, events, viewer):
        self.selector.register(sock, events, viewer)

    def unregister(self, sock):
        self.selector.unregister(sock)

    def run_for(self, seconds):
        end = time.monotonic() + seconds
        next_timers = 0.0
        while True:
            now = time.monotonic()
            if now >= next_timers:
                for viewer in self.viewers:
                    viewer.timers(now)
                next_timers = now + 0.02
            if now >= end:
                return
            for key, _ in self.selector.select(timeout=max(0.0, min(end, next_timers) - now)):
                key.data.readable()


def main():
    parser = argparse.ArgumentParser(description="N light WHEP viewers in one thread, for scripts/bench whep")
    parser.add_argument("url")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--token")
    parser.add_argument("--measure", action="append", default=[], metavar="NAME=PID")
    parser.add_argument("--warmup", type=float, default=60.0)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--spacing", type=float, default=0.05)
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1)  # kill -USR1 PID: where it is, on stderr
    measured = dict(item.split("=", 1) for item in args.measure)
    load_before = open("/proc/loadavg").read().split()[:3]
    key, cert, fingerprint_text = certificate()
    context = ssl_context(key, cert)
    loop = Loop()

    started = time.monotonic()
    for index in range(args.count):
        viewer = Viewer(index + 1, loop, context, fingerprint_text)
        loop.viewers.append(viewer)
        asked = time.monotonic()
        try:
            viewer.post(args.url, args.token)
        except (socket.timeout, TimeoutError) as error:  # a server too busy to answer: this viewer failed, go on
            viewer.problem = f"POST: {error or 'timed out'} after {HTTP_TIMEOUT} s"
        except (OSError, http.client.HTTPException) as error:
            for each in loop.viewers:
                each.close()
            print(f"whep-light-viewers: POST {args.url}: {error or type(error).__name__}", file=sys.stderr, flush=True)
            return 2
        viewer.post_s = time.monotonic() - asked
        loop.last_post = time.monotonic()
        loop.run_for(args.spacing)
    posted_s = time.monotonic() - started
    while not all(viewer.settled(time.monotonic()) for viewer in loop.viewers):
        loop.run_for(0.1)
    connected = [viewer for viewer in loop.viewers if viewer.connected_at is not None]
    print(f"whep-light-viewers: {len(connected)} of {args.count} connected {time.monotonic() - started:.1f} s after "
          f"the first POST ({posted_s:.1f} s to POST them all)", file=sys.stderr, flush=True)
    if not connected:
        result = summary(args, loop.viewers, {}, {}, None, None, load_before, posted_s)
        for viewer in loop.viewers:
            viewer.delete(args.token)
            viewer.close()
        print(json.dumps(result), flush=True)
        return 1

    warmup_s = warm_up(connected, args.warmup, loop.run_for)

    pids = {**measured, "viewers": str(os.getpid())}
    processes, window = measure(pids, connected, args.window, loop.run_for)
    # Every session DELETEd; a server that stops answering (three in a row not answered in 5 s) is not asked further.
    deleted = delete_all(loop.viewers, args.token, lambda: loop.run_for(0))
    result = summary(args, loop.viewers, processes, deleted, window, warmup_s, load_before, posted_s)
    for viewer in loop.viewers:
        viewer.close()
    print(json.dumps(result), flush=True)
    return 0


def summary(args, viewers, processes, deleted, window, warmup_s, load_before, posted_s):
    statuses, connected, failed = sessions(viewers)
    profiles = {}
    for viewer in connected:
        profiles[viewer.srtp_profile] = profiles.get(viewer.srtp_profile, 0) + 1
    result = {"count": args.count, "viewer": "light", "status": statuses,
              "refusals": sorted({viewer.body for viewer in viewers if viewer.body})[:5],
              "connected": len(connected), "failed": failed[:10], "failures": len(failed), "posted_s": round(posted_s, 1),
              "post_s": spread([viewer.post_s for viewer in viewers if viewer.post_s is not None]),
              "connect_s": spread([viewer.connected_at - viewer.answered_at for viewer in connected]),
              "ice_checks": spread([viewer.checks for viewer in connected]), "srtp_profile": profiles,
              "unprotect_failures": sum(viewer.unprotect_failures for viewer in viewers)}
    if window is not None:
        r0, r1, seconds = window
        kinds = {"video": 0, "audio": 0}
        receiving, rates, fps, total = 0, [], [], 0
        for viewer in connected:
            a, b = r0[viewer.index], r1[viewer.index]
            grew = total_bytes(b) - total_bytes(a)
            total += grew
            rates.append(grew * 8 / seconds / 1000)
            fps.append((b["video"][2] - a["video"][2]) / seconds)
            receiving += grew > 0
            for kind in kinds:
                kinds[kind] += b[kind][0] > a[kind][0]
        result.update({"receiving": receiving, "video_receiving": kinds["video"], "audio_receiving": kinds["audio"],
                       "still_connected": sum(1 for viewer in connected if not viewer.problem),
                       "mbits": round(total * 8 / seconds / 1e6, 2), "kbits_per_viewer": spread(rates),
                       "video_fps": spread(fps), "window_s": round(seconds, 1), "warmup_s": round(warmup_s, 1)})
    result.update({"measured": processes, "deleted": deleted,
                   "load": [" ".join(load_before), " ".join(open("/proc/loadavg").read().split()[:3])]})
    return result


if __name__ == "__main__":
    sys.exit(main())
