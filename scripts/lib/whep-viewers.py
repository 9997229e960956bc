#!/usr/bin/python3
"""The load of `scripts/bench whep`: N WHEP viewers of one URL in this one process, each GStreamer 1.22's webrtcbin
(libnice ICE, DTLS client, SRTP) with recvonly H.264 and Opus transceivers whose pads go straight to a fakesink: no
depayloading, no decoding. What a viewer costs its machine is then ICE, DTLS, SRTP decryption, webrtcbin's jitter
buffer and the RTCP receiver reports it sends, the least a real viewer does. While they watch, it measures other
processes (the worker) over a window, as scripts/lib/density-measure.py does.

    /usr/bin/python3 scripts/lib/whep-viewers.py URL --count N [--token T] [--measure PID] [--feeder PID]
                     [--warmup S] [--window S] [--spacing S]

The viewers are made one after another (--spacing, default 0.05 s, between two), each: offer (every candidate in it,
after gathering: the server takes no trickle ICE), POST, answer; they connect meanwhile. Then, once each has
connected or failed (30 s at most after its answer), a warm-up until every connected viewer's inbound bytes grow
(--warmup, default 60 s, at most; then 5 s more), and the measured window (--window, default 30 s). Bytes and packets
received are webrtcbin's own statistics (get-stats, inbound-rtp: what SRTP let through), read at both ends of the
window, so no Python runs per packet. Then every session is DELETEd and its pipeline stopped. One line of JSON:

    {"count": N, "status": {"201": N}, "refusals": [...], "connected": N, "failed": [...], "connect_s": {...},
     "receiving": N, "video_receiving": N, "audio_receiving": N, "mbits": M, "kbits_per_viewer": {...},
     "window_s": S, "warmup_s": W, "measured": {"worker": {"cpu": %, "rss_kib", "anon_kib", "threads"}, ...,
     "viewers": {…}}, "deleted": {"200": N}, "load": [before, after]}

receiving: viewers whose received bytes grew over the window (video_receiving / audio_receiving: that kind's
packets grew); mbits: all viewers' received bytes over the window; measured: each --measure NAME=PID and this
process ("viewers"), cpu in % of one core over the window (utime + stime of every thread), the rest at its end. libnice leaves out 127.0.0.1, so the host needs another address (the
server's 127.0.0.1 candidate is fine). Exit 1: no webrtcbin, or no viewer connected; 2: the server cannot be reached."""
import argparse
import http.client
import importlib.util
import json
import os
import sys
import time
import urllib.parse

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import Gst, GstWebRTC  # noqa: E402

from whep_measure import delete_all, measure, sessions, spread, total_bytes, warm_up  # noqa: E402

# The single peer's helpers (webrtcbin's promises, the offer with every candidate, the answer), shared.
_spec = importlib.util.spec_from_file_location("webrtcbin_peer", os.path.join(os.path.dirname(__file__), "webrtcbin-peer.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

CONNECT_TIMEOUT = 30  # seconds from a viewer's answer to "connected"


class Viewer:
    """One WHEP session: its own pipeline of one webrtcbin, each source pad it makes linked to a fakesink."""

    def __init__(self, index):
        self.index = index
        self.pipeline = Gst.Pipeline.new(f"viewer-{index}")
        self.webrtc = peer.make_webrtcbin(self.pipeline)
        self.webrtc.connect("pad-added", self.pad_added)
        self.status = None
        self.body = None
        self.location = None
        self.answered_at = None
        self.connected_at = None
        self.problem = None

    def pad_added(self, _webrtc, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        sink = Gst.ElementFactory.make("fakesink")
        # A sink added to a playing pipeline has nothing to preroll against (async); no clock to wait for (sync).
        for name, value in (("sync", False), ("async", False), ("enable-last-sample", False), ("qos", False)):
            sink.set_property(name, value)
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    def start(self, url, token):
        """Offer, POST, answer. Returns False when the server cannot be reached."""
        self.pipeline.set_state(Gst.State.PLAYING)
        for kind in ("video", "audio"):
            self.webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY,
                             Gst.Caps.from_string(peer.RECV_CAPS[kind]))
        try:
            offer = peer.make_offer(self.pipeline, self.webrtc)
        except peer.PipelineError as error:
            self.problem = f"offer: {error}"
            return True
        headers = {"Content-Type": "application/sdp", **peer.auth_headers(token)}
        try:
            self.status, response_headers, body = peer.http_request("POST", url, offer, headers)
        except (OSError, http.client.HTTPException) as error:
            self.problem = f"POST: {error or type(error).__name__}"
            return False
        if self.status != 201:
            self.body = body.strip()
            self.problem = f"answered {self.status}"
            return True
        location = peer.header(response_headers, "location")
        self.location = urllib.parse.urljoin(url, location) if location else None
        try:
            peer.set_answer(self.webrtc, body)
        except peer.PipelineError as error:
            self.problem = f"the answer could not be used: {error}"
            return True
        self.answered_at = time.monotonic()
        return True

    def state(self):
        return peer.connection_state(self.webrtc)

    def settled(self, now):
        """Connected, failed, or out of time; notes when it connected."""
        if self.answered_at is None or self.problem:
            return True
        states = GstWebRTC.WebRTCPeerConnectionState
        state = self.state()
        if state == states.CONNECTED:
            if self.connected_at is None:
                self.connected_at = now
            return True
        if state in (states.FAILED, states.CLOSED):
            self.problem = f"{peer.connection_note(self.webrtc)}"
            return True
        if now - self.answered_at > CONNECT_TIMEOUT:
            self.problem = f"not connected within {CONNECT_TIMEOUT} s ({peer.connection_note(self.webrtc)})"
            return True
        return False

    def connected(self):
        return self.connected_at is not None and self.state() == GstWebRTC.WebRTCPeerConnectionState.CONNECTED

    def received(self):
        """{"video": (packets, bytes), "audio": (…)} from webrtcbin's inbound-rtp statistics (after SRTP)."""
        totals = {"video": [0, 0], "audio": [0, 0]}
        try:
            stats = self._stats()
        except peer.PipelineError:
            return {kind: tuple(value) for kind, value in totals.items()}
        for i in range(stats.n_fields()):
            entry = stats.get_value(stats.nth_field_name(i))
            if not isinstance(entry, Gst.Structure) or entry.get_name() != "inbound-rtp":
                continue
            # The kind by the RTP clock: webrtcbin 1.22 names both of a bundle's streams by one codec (its "kind"
            # said audio for the video too).
            source = entry.get_value("gst-rtpsource-stats") if entry.has_field("gst-rtpsource-stats") else None
            clock = source.get_int("clock-rate")[1] if isinstance(source, Gst.Structure) else 0
            media = "video" if clock == 90000 else "audio"
            ok_p, packets = entry.get_uint64("packets-received")
            ok_b, size = entry.get_uint64("bytes-received")
            totals[media][0] += packets if ok_p else 0
            totals[media][1] += size if ok_b else 0
        return {kind: tuple(value) for kind, value in totals.items()}

    def _stats(self):
        promise = Gst.Promise.new()
        self.webrtc.emit("get-stats", None, promise)
        promise.wait()
        reply = promise.get_reply()
        if reply is None:
            raise peer.PipelineError("get-stats: no reply")
        return reply.copy()

    def drain_bus(self):
        """Reads the bus (no main loop runs here), so its messages do not pile up; the first error is kept."""
        bus = self.pipeline.get_bus()
        while (message := bus.pop()) is not None:
            if message.type == Gst.MessageType.ERROR and not self.problem:
                error, _debug = message.parse_error()
                self.problem = f"{message.src.get_name()}: {error.message}"

    def delete(self, token):
        if not self.location:
            return None
        try:
            status, _, _ = peer.http_request("DELETE", self.location, headers=peer.auth_headers(token))
            return status
        except (OSError, http.client.HTTPException) as error:
            return f"{error or type(error).__name__}"

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


def tick_all(viewers):
    now = time.monotonic()
    for viewer in viewers:
        viewer.drain_bus()
    return all(viewer.settled(now) for viewer in viewers)


def main():
    parser = argparse.ArgumentParser(description="N webrtcbin WHEP viewers in one process, for scripts/bench whep")
    parser.add_argument("url")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--token")
    parser.add_argument("--measure", action="append", default=[], metavar="NAME=PID",
                        help="a process to measure over the window (repeatable)")
    parser.add_argument("--warmup", type=float, default=60.0)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--spacing", type=float, default=0.05)
    args = parser.parse_args()
    Gst.init(None)
    for element in ("webrtcbin", "fakesink", "nicesrc", "dtlssrtpdec", "srtpdec"):
        if Gst.ElementFactory.find(element) is None:
            peer.fail(1, f"no {element}: install gstreamer1.0-plugins-bad and gstreamer1.0-nice")
    measured = dict(item.split("=", 1) for item in args.measure)
    load_before = open("/proc/loadavg").read().split()[:3]

    viewers = []
    started = time.monotonic()
    for index in range(args.count):
        viewer = Viewer(index + 1)
        viewers.append(viewer)
        if not viewer.start(args.url, args.token):
            for each in viewers:
                each.stop()
            peer.fail(2, f"viewer {index + 1}: {viewer.problem}")
        tick_all(viewers)
        time.sleep(args.spacing)
    posted_s = time.monotonic() - started
    while not tick_all(viewers):
        time.sleep(0.1)
    connected = [viewer for viewer in viewers if viewer.connected_at is not None]
    print(f"whep-viewers: {len(connected)} of {args.count} connected {time.monotonic() - started:.1f} s after the "
          f"first POST ({posted_s:.1f} s to POST them all)", file=sys.stderr, flush=True)
    if not connected:
        for viewer in viewers:
            viewer.stop()
        print(json.dumps(summary(args, viewers, {}, {}, None, None, load_before, posted_s)), flush=True)
        return 1

    def run_for(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
            tick_all(viewers)

    warmup_s = warm_up(connected, args.warmup, run_for)

    pids = {**measured, "viewers": str(os.getpid())}
    processes, window = measure(pids, connected, args.window, run_for)
    # A server that stops answering (three DELETEs in a row not answered in 10 s) is not asked further.
    deleted = delete_all(viewers, args.token)
    for viewer in viewers:
        viewer.stop()
    result = summary(args, viewers, processes, deleted, window, warmup_s, load_before, posted_s)
    print(json.dumps(result), flush=True)
    return 0


def summary(args, viewers, processes, deleted, window, warmup_s, load_before, posted_s):
    statuses, connected, failed = sessions(viewers)
    refusals = sorted({viewer.body for viewer in viewers if viewer.body})[:5]
    result = {"count": args.count, "status": statuses, "refusals": refusals, "connected": len(connected),
              "failed": failed[:10], "failures": len(failed), "posted_s": round(posted_s, 1),
              "connect_s": spread([viewer.connected_at - viewer.answered_at for viewer in connected])}
    if window is not None:
        r0, r1, seconds = window
        kinds = {"video": 0, "audio": 0}
        receiving, rates, total = 0, [], 0
        for viewer in connected:
            a, b = r0[viewer.index], r1[viewer.index]
            grew = total_bytes(b) - total_bytes(a)
            total += grew
            rates.append(grew * 8 / seconds / 1000)
            receiving += grew > 0
            for kind in kinds:
                kinds[kind] += b[kind][0] > a[kind][0]
        result.update({"receiving": receiving, "video_receiving": kinds["video"], "audio_receiving": kinds["audio"],
                       "still_connected": sum(1 for viewer in connected if viewer.connected()),
                       "mbits": round(total * 8 / seconds / 1e6, 2), "kbits_per_viewer": spread(rates),
                       "window_s": round(seconds, 1), "warmup_s": round(warmup_s, 1)})
    result.update({"measured": processes, "deleted": deleted,
                   "load": [" ".join(load_before), " ".join(open("/proc/loadavg").read().split()[:3])]})
    return result


if __name__ == "__main__":
    sys.exit(main())
