#!/usr/bin/python3
"""A second WebRTC peer for the integration tests, independent of whip-client.py (aiortc): GStreamer 1.22's
webrtcbin and libnice from Python, publishing over WHIP (RFC 9725) and viewing over WHEP.

    /usr/bin/python3 scripts/lib/webrtcbin-peer.py publish URL --file MEDIA [--token T] [--seconds N]
    /usr/bin/python3 scripts/lib/webrtcbin-peer.py play URL [--token T] [--seconds N]

publish reads MEDIA (an MP4 or MOV with H.264 or H.265 video and optionally audio) and sends its video as it is, not
encoded again, and its audio as Opus (Opus audio as it is, through opusparse; other audio encoded):
    qtdemux ! queue ! h264parse ! rtph264pay config-interval=-1 pt=102 ! webrtcbin
    qtdemux ! queue ! decodebin ! audioconvert ! audioresample ! audio/x-raw,channels=2 ! opusenc ! rtpopuspay pt=111 ! webrtcbin
played at 1x, once. Encoded audio is stereo Opus whatever the file's channels (faad gives a mono AAC two channels and
avdec_aac one: the caps make the publisher the same with either). The offer (bundle-policy max-bundle, each m= line sendonly) is POSTed only once ICE gathering
is complete, so it holds every candidate: the server does not take trickle ICE (PATCH). No STUN server is asked
(the tests must not touch the internet); libnice leaves out 127.0.0.1, so the host needs another address (a
server's 127.0.0.1 candidate is fine). On 201 the body is set as the answer; once webrtcbin's connection-state is
connected the file starts (from its beginning: nothing is sent while ICE and DTLS come up) and streams for
--seconds (default 5) or until the file ends; then the Location is DELETEd. It prints one line of JSON:
    {"status": 201, "location": URL, "connected": true, "delete_status": 200, "seconds": 5.0, "rejected": [],
     "ended": WHY, "sent": {"video_frames": 150, "audio_frames": 250, "packets": 1400}}
where rejected names the streams whose m= line the answer rejected (port 0; not sent), WHY is "seconds", "media"
(the file ended first) or "disconnected" (the connection failed or closed first), and sent counts what the
payloaders handed to webrtcbin once connected (video frames: RTP packets with the marker bit; Opus frames: RTP
packets): a loaded machine may send
fewer frames in the seconds than the file has.

play is a WHEP viewer: recvonly transceivers for H.264 (packetization-mode 1 in four profiles, pt 102-108) and
Opus (pt 111); each track webrtcbin gives is decoded (decodebin ! fakesink) and its frames counted for --seconds,
then DELETE:
    {"status": 201, "location": URL, "connected": true, "delete_status": 200, "video_frames": 148,
     "audio_frames": 0, "sizes": ["640x360"], "first_video_after": 0.12}

Any other answer to the POST prints {"status": CODE, "body": ...} and exits 0: the tests judge the status.
Exit 1: the pipeline failed (a missing element, an unreadable file); exit 2: the HTTP server could not be reached
(or MEDIA cannot be used); exit 3: not connected within 20 s of the answer, or the answer could not be set (the JSON
line is printed first, with "connected": false). webrtcbin 1.22 does not connect when the answer rejects the first
m= line (the one the BUNDLE transport was made for). Needs Debian's /usr/bin/python3 (python3-gi) with
gstreamer1.0-nice, gstreamer1.0-plugins-bad (webrtcbin) and -good; decodebin decodes the AAC (faad or avdec_aac)
and play's H.264 and Opus (openh264dec or avdec_h264, opusdec)."""
import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import Gst, GstSdp, GstWebRTC  # noqa: E402

CONNECT_TIMEOUT = 20  # seconds from the answer to "connected"; a loopback connect takes well under one
GATHER_TIMEOUT = 10  # host candidates only: gathering ends at once
MEDIA_TIMEOUT = 10  # for the file's first packets, whose caps the offer is made from
HTTP_TIMEOUT = 10
VIDEO_PT, AUDIO_PT = 102, 111

# What play offers: H.264 in the profiles a browser offers (a server sends only a profile the offer can decode: a
# constrained-baseline-only offer gets no video from a High stream), level-asymmetry-allowed so that the level is
# no bar; and Opus.
H264_PROFILES = {102: "42e01f", 104: "42001f", 106: "4d001f", 108: "64001f"}
RECV_CAPS = {
    "video": ";".join(f"application/x-rtp,media=video,encoding-name=H264,payload={pt},clock-rate=90000,"
                      f"packetization-mode=(string)1,profile-level-id=(string){profile},"
                      "level-asymmetry-allowed=(string)1" for pt, profile in H264_PROFILES.items()),
    "audio": f"application/x-rtp,media=audio,encoding-name=OPUS,payload={AUDIO_PT},clock-rate=48000,"
             "encoding-params=(string)2",
}
# The branch from the demuxer to webrtcbin for each kind of stream; the payloader's output is held until the peer
# is connected. Nothing here syncs: webrtcbin paces what comes in on each sink pad by the clock (a clocksync of
# its own, for its sender reports), so the file plays at 1x.
SEND_BRANCHES = {
    "video": f"queue name=in ! h264parse ! rtph264pay name=out config-interval=-1 pt={VIDEO_PT}",
    # A file whose video is HEVC: sent as H.265 (RFC 7798), its parameter sets in band before each keyframe.
    "hevc": f"queue name=in ! h265parse ! rtph265pay name=out config-interval=-1 pt={VIDEO_PT}",
    "audio": f"queue name=in ! decodebin ! audioconvert ! audioresample ! audio/x-raw,channels=2 ! opusenc "
             f"! rtpopuspay name=out pt={AUDIO_PT}",
    # A file whose audio is Opus already (scripts/bench webrtc's): sent as it is, so a publisher costs no encode.
    "opus": f"queue name=in ! opusparse ! rtpopuspay name=out pt={AUDIO_PT}",
}


class PipelineError(Exception):
    pass


def fail(code, message):
    print(f"webrtcbin-peer: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def emit(result):
    print(json.dumps(result), flush=True)


def http_request(method, url, body=None, headers=None):
    """One request on its own connection: (status, [(name, value)], body text). Raises OSError or HTTPException
    when the server cannot be reached or does not answer. Redirects are not followed: the tests judge them.
    Blocking is fine: webrtcbin and libnice answer the network from their own threads meanwhile."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OSError(f"not an http(s) URL: {url}")
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_class(parts.hostname, parts.port, timeout=HTTP_TIMEOUT)
    try:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request(method, target, body=body.encode() if isinstance(body, str) else body,
                           headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read().decode("utf-8", errors="replace")
    finally:
        connection.close()


def header(headers, name):
    """A response header's value (repeated ones joined with ", " as RFC 9110 allows), or None."""
    values = [value for key, value in headers if key.lower() == name]
    return ", ".join(values) if values else None


def auth_headers(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


def wait_until(pipeline, predicate, timeout):
    """predicate() once it is true or timeout seconds pass, watching the bus meanwhile: the flow here is linear
    (no GLib main loop; webrtcbin's promises are waited on), so errors are read from the bus while waiting."""
    deadline = time.monotonic() + timeout
    bus = pipeline.get_bus()
    while not predicate() and time.monotonic() < deadline:
        message = bus.timed_pop_filtered(20 * Gst.MSECOND, Gst.MessageType.ERROR)
        if message is not None:
            error, debug = message.parse_error()
            raise PipelineError(f"{message.src.get_name()}: {error.message} ({debug})")
    return predicate()


def promised(webrtc, signal, *args, field=None):
    """Emits one of webrtcbin's promise-taking action signals, waits for its reply and returns the reply's field
    (None without one: the setters reply nothing). An error reply carries an "error" field; that is raised."""
    promise = Gst.Promise.new()
    webrtc.emit(signal, *args, promise)
    promise.wait()
    reply = promise.get_reply()
    if reply is not None and reply.has_field("error"):
        raise PipelineError(f"{signal}: {reply.get_value('error').message}")
    # The reply is owned by the promise and its field by the reply: copied while both are alive, or what is
    # returned is freed under us.
    return reply.get_value(field).copy() if field else None


def branch_bin(description):
    """A bin of description with a sink pad (its element "in") and, if it has one, a src pad ("out"). Not
    parse_bin_from_description's ghosting of unlinked pads: that takes the pad after a decodebin (linked only
    once decodebin knows its output) for the bin's sink pad."""
    branch = Gst.parse_bin_from_description(description, False)
    branch.add_pad(Gst.GhostPad.new("sink", branch.get_by_name("in").get_static_pad("sink")))
    if branch.get_by_name("out") is not None:
        branch.add_pad(Gst.GhostPad.new("src", branch.get_by_name("out").get_static_pad("src")))
    return branch


def make_webrtcbin(pipeline):
    webrtc = Gst.ElementFactory.make("webrtcbin", "webrtc")
    if webrtc is None:
        fail(1, "no webrtcbin: install gstreamer1.0-plugins-bad and gstreamer1.0-nice")
    # One transport for all media, as WHIP servers expect; no stun-server or turn-server is set, so only host
    # candidates are gathered.
    webrtc.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
    pipeline.add(webrtc)
    return webrtc


def make_offer(pipeline, webrtc):
    """Creates the offer, sets it as the local description and waits until every candidate is in it: what is
    POSTed is the local description then, not the offer as created (that has no candidates yet)."""
    offer = promised(webrtc, "create-offer", None, field="offer")
    promised(webrtc, "set-local-description", offer)
    complete = GstWebRTC.WebRTCICEGatheringState.COMPLETE
    if not wait_until(pipeline, lambda: webrtc.get_property("ice-gathering-state") == complete, GATHER_TIMEOUT):
        raise PipelineError(f"ICE gathering did not complete within {GATHER_TIMEOUT} s")
    return webrtc.get_property("local-description").sdp.as_text()


# What webrtcbin 1.22 wants in every m= section of an answer, a rejected one (port 0) too.
TRANSPORT_ATTRIBUTES = ("ice-ufrag", "ice-pwd", "setup", "fingerprint")


def fill_rejected_sections(text):
    """The answer with each of TRANSPORT_ATTRIBUTES a section lacks copied in from the first section that has it.
    A server may rightly leave a rejected section bare (m=, c=, a=mid), and webrtcbin 1.22 then refuses the whole
    answer (it reads setup from the sections only, not the session). All sections are bundled, so they share one
    transport and these values."""
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    starts = [index for index, line in enumerate(lines) if line.startswith("m=")]
    if not starts:
        return text
    session = lines[:starts[0]]
    sections = [lines[begin:end] for begin, end in zip(starts, starts[1:] + [len(lines)])]
    for name in TRANSPORT_ATTRIBUTES:
        found = [line for section in sections for line in section if line.startswith(f"a={name}:")]
        if found:
            for section in sections:
                if not any(line.startswith(f"a={name}:") for line in section):
                    section.append(found[0])
    return "\r\n".join(session + [line for section in sections for line in section]) + "\r\n"


def set_answer(webrtc, text):
    result, message = GstSdp.SDPMessage.new_from_text(fill_rejected_sections(text))
    if result != GstSdp.SDPResult.OK:
        raise PipelineError(f"the answer is not SDP ({result.value_nick})")
    answer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, message)
    promised(webrtc, "set-remote-description", answer)


def connection_state(webrtc):
    return webrtc.get_property("connection-state")


def wait_connected(pipeline, webrtc):
    """True once ICE and DTLS are up (webrtcbin's connection-state connected); False if it fails or closes, or
    CONNECT_TIMEOUT passes first."""
    states = GstWebRTC.WebRTCPeerConnectionState
    wait_until(pipeline, lambda: connection_state(webrtc) in (states.CONNECTED, states.FAILED, states.CLOSED),
               CONNECT_TIMEOUT)
    return connection_state(webrtc) == states.CONNECTED


def connection_note(webrtc):
    return (f"ICE {webrtc.get_property('ice-connection-state').value_nick}, "
            f"connection {connection_state(webrtc).value_nick}")


def offer_answer(args, pipeline, webrtc, result):
    """The WHIP/WHEP exchange both commands share: offer, POST, answer, connect. Fills result in; returns the
    problem (None if connected) or exits at once for an unreachable server or a non-201 answer."""
    offer = make_offer(pipeline, webrtc)
    headers = {"Content-Type": "application/sdp", **auth_headers(args.token)}
    try:
        status, response_headers, body = http_request("POST", args.url, offer, headers)
    except (OSError, http.client.HTTPException) as error:
        pipeline.set_state(Gst.State.NULL)
        fail(2, f"POST {args.url}: {error or type(error).__name__}")
    if status != 201:
        pipeline.set_state(Gst.State.NULL)
        emit({"status": status, "body": body})
        sys.exit(0)
    location = header(response_headers, "location")
    result["location"] = urllib.parse.urljoin(args.url, location) if location else None
    try:
        set_answer(webrtc, body)
    except PipelineError as error:  # a malformed or mismatched answer: nothing can connect
        return f"the answer could not be used: {error}"
    result["connected"] = wait_connected(pipeline, webrtc)
    if not result["connected"]:
        return f"not connected within {CONNECT_TIMEOUT} s ({connection_note(webrtc)})"
    return None


def delete_session(args, result):
    """DELETEs the session, even one that never connected, so a failed test does not leave it on the server.
    The problem if the server cannot be reached, else None."""
    if not result.get("location"):
        return None
    try:
        result["delete_status"], _, _ = http_request("DELETE", result["location"], headers=auth_headers(args.token))
    except (OSError, http.client.HTTPException) as error:
        return f"DELETE {result['location']}: {error or type(error).__name__}"
    return None


class Sender:
    """The file's streams on their way to webrtcbin: one branch per kind (the first H.264 or H.265 video and the first
    audio; others are ignored), each held at its payloader's output from the first packet until the peer is
    connected. The caps and segment pass before the hold, so webrtcbin knows each stream's RTP caps (the offer's
    fmtp, sprop-parameter-sets included) while nothing is sent yet."""

    def __init__(self, pipeline, webrtc, path):
        self.pipeline, self.webrtc = pipeline, webrtc
        self.lock = threading.Lock()
        self.holds = {}  # kind -> (payloader src pad, probe id)
        self.transceivers = {}  # kind -> its webrtcbin transceiver
        self.held = set()  # kinds whose first packet is waiting
        self.ended = set()  # kinds whose EOS went past the payloader
        self.sent = {"video": 0, "audio": 0}  # RTP packets with the marker bit handed to webrtcbin (video: frames)
        self.packets = 0
        self.ignored = []
        self.all_pads = False
        source = Gst.ElementFactory.make("filesrc")
        source.set_property("location", path)
        demux = Gst.ElementFactory.make("qtdemux")
        for element in (source, demux):
            pipeline.add(element)
        source.link(demux)
        demux.connect("pad-added", self.pad_added)
        demux.connect("no-more-pads", self.no_more_pads)

    @staticmethod
    def kind_of(caps):
        name = caps.get_structure(0).get_name()
        return "video" if name in ("video/x-h264", "video/x-h265") else "audio" if name.startswith("audio/") else None

    def pad_added(self, _demux, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        kind = self.kind_of(caps)
        with self.lock:
            if kind is None or kind in self.holds:
                self.ignored.append(caps.get_structure(0).get_name())
                return
            self.holds[kind] = None  # claimed: a second stream of this kind is ignored
        name = caps.get_structure(0).get_name()
        branch = branch_bin(SEND_BRANCHES["opus" if name == "audio/x-opus" else "hevc" if name == "video/x-h265" else kind])
        self.pipeline.add(branch)
        payloader = branch.get_by_name("out").get_static_pad("src")
        hold = payloader.add_probe(Gst.PadProbeType.BLOCK | Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST,
                                   lambda _pad, _info: self.first_packet(kind))
        payloader.add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, lambda _pad, info: self.event(kind, info))
        payloader.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST,
                            lambda _pad, info: self.count(kind, info))
        with self.lock:
            self.holds[kind] = (payloader, hold)
        sink = self.webrtc.request_pad_simple("sink_%u")
        branch.get_static_pad("src").link(sink)
        transceiver = sink.get_property("transceiver")
        # webrtcbin makes the pad's transceiver sendrecv; WHIP publishes one way.
        transceiver.set_property("direction", GstWebRTC.WebRTCRTPTransceiverDirection.SENDONLY)
        with self.lock:
            self.transceivers[kind] = transceiver
        branch.sync_state_with_parent()
        pad.link(branch.get_static_pad("sink"))

    def no_more_pads(self, _demux):
        with self.lock:
            self.all_pads = True

    def first_packet(self, kind):
        with self.lock:
            self.held.add(kind)
        return Gst.PadProbeReturn.OK  # stays blocked until release() removes the probe

    def count(self, kind, info):
        """Counts what passes the payloader (after the hold): each RTP packet, video frames by the marker bit (the
        last packet of a frame) and Opus frames by packet (one each; rtpopuspay marks only a talkspurt's first), so
        the tests judge by what was sent."""
        buffers = info.get_buffer_list() if info.type & Gst.PadProbeType.BUFFER_LIST else None
        packets = [buffers.get(i) for i in range(buffers.length())] if buffers is not None else [info.get_buffer()]
        marked = sum(1 for packet in packets if packet is not None and packet.get_size() >= 2
                     and packet.extract_dup(1, 1)[0] & 0x80)
        with self.lock:
            self.sent[kind] += marked if kind == "video" else len(packets)
            self.packets += len(packets)
        return Gst.PadProbeReturn.OK

    def counted(self):
        with self.lock:
            return {"video_frames": self.sent["video"], "audio_frames": self.sent["audio"], "packets": self.packets}

    def event(self, kind, info):
        if info.get_event().type == Gst.EventType.EOS:
            with self.lock:
                self.ended.add(kind)
        return Gst.PadProbeReturn.OK

    def kinds(self):
        with self.lock:
            return sorted(self.holds)

    def ready(self):
        """Every stream the file has is held at its first packet (or already ended: a very short file)."""
        with self.lock:
            return self.all_pads and all(kind in self.held or kind in self.ended for kind in self.holds)

    def rejected(self):
        """The kinds whose m= line the answer rejected (port 0): webrtcbin takes the mid from such a transceiver."""
        with self.lock:
            return sorted(kind for kind, transceiver in self.transceivers.items()
                          if transceiver.get_property("mid") is None)

    def release(self):
        """Lets the held packets go, moved to now on the pipeline's clock: webrtcbin then sends the file from
        its first frame at 1x instead of rushing through the seconds spent connecting. Every stream gets the same
        offset, so they stay in step. A rejected stream's packets are dropped instead: webrtcbin would hold them,
        its queue would fill, and the demuxer would stop feeding the other stream too (after a second)."""
        now = self.pipeline.get_clock().get_time() - self.pipeline.get_base_time()
        rejected = self.rejected()
        with self.lock:
            holds = list(self.holds.items())
        for kind, (pad, probe) in holds:
            if kind in rejected:
                pad.add_probe(Gst.PadProbeType.BUFFER, lambda _pad, _info: Gst.PadProbeReturn.DROP)
            pad.set_offset(now)  # sends the segment again, offset
            pad.remove_probe(probe)

    def finished(self):
        with self.lock:
            return bool(self.holds) and set(self.holds) <= self.ended


def stream(pipeline, webrtc, sender, seconds):
    """Streams until seconds pass, the file ends or the connection drops; which came first."""
    states = GstWebRTC.WebRTCPeerConnectionState
    deadline = time.monotonic() + seconds
    dropped = lambda: connection_state(webrtc) in (states.FAILED, states.CLOSED, states.DISCONNECTED)  # noqa: E731
    wait_until(pipeline, lambda: sender.finished() or dropped(), seconds)
    if dropped():
        return "disconnected"
    return "media" if sender.finished() and time.monotonic() < deadline else "seconds"


def publish(args):
    if not os.path.isfile(args.file):
        fail(2, f"cannot open {args.file}")
    pipeline = Gst.Pipeline.new("publish")
    webrtc = make_webrtcbin(pipeline)
    sender = Sender(pipeline, webrtc, args.file)
    result = {"status": 201, "location": None, "connected": False, "delete_status": None, "seconds": 0.0}
    problem, code = None, 3
    try:
        pipeline.set_state(Gst.State.PLAYING)
        if not wait_until(pipeline, sender.ready, MEDIA_TIMEOUT):
            raise PipelineError(f"no packets from {args.file} within {MEDIA_TIMEOUT} s")
        if "video" not in sender.kinds():
            pipeline.set_state(Gst.State.NULL)
            fail(2, f"{args.file} has no H.264 or H.265 video (found {sender.ignored}; this peer does not encode video)")
        problem = offer_answer(args, pipeline, webrtc, result)
        result["rejected"] = sender.rejected()
        if problem is None:
            started = time.monotonic()
            sender.release()
            result["ended"] = stream(pipeline, webrtc, sender, args.seconds)
            result["seconds"] = round(time.monotonic() - started, 3)
            result["sent"] = sender.counted()
    except PipelineError as error:
        problem, code = str(error), 1
        if not result["location"]:  # before the POST: nothing to report but the error
            pipeline.set_state(Gst.State.NULL)
            fail(code, problem)
    unreachable = delete_session(args, result)
    if unreachable and problem is None:  # else the first failure is the one that matters
        problem, code = unreachable, 2
    pipeline.set_state(Gst.State.NULL)
    emit(result)
    if problem:
        fail(code, problem)
    return 0


class Receiver:
    """Decodes every track webrtcbin gives (decodebin ! fakesink) and counts the frames of each kind."""

    def __init__(self, pipeline, webrtc):
        self.pipeline = pipeline
        self.lock = threading.Lock()
        self.frames = {"video": [], "audio": []}  # kind -> monotonic arrival times
        self.sizes = set()
        webrtc.connect("pad-added", self.pad_added)

    def pad_added(self, _webrtc, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        kind = pad.get_current_caps().get_structure(0).get_string("media")
        # async=false: a sink added to a playing pipeline has nothing to preroll against.
        branch = branch_bin("decodebin name=in ! fakesink name=sink sync=false async=false")
        self.pipeline.add(branch)
        branch.get_by_name("sink").get_static_pad("sink").add_probe(
            Gst.PadProbeType.BUFFER, lambda sink_pad, _info: self.frame(kind, sink_pad))
        branch.sync_state_with_parent()
        pad.link(branch.get_static_pad("sink"))

    def frame(self, kind, sink_pad):
        with self.lock:
            self.frames.setdefault(kind, []).append(time.monotonic())
            caps = sink_pad.get_current_caps()
            if kind == "video" and caps is not None:
                structure = caps.get_structure(0)
                self.sizes.add(f"{structure.get_int('width')[1]}x{structure.get_int('height')[1]}")
        return Gst.PadProbeReturn.OK


def play(args):
    """WHEP: a recvonly offer (H.264 and Opus), then the decoded frames of each track counted for --seconds."""
    pipeline = Gst.Pipeline.new("play")
    webrtc = make_webrtcbin(pipeline)
    receiver = Receiver(pipeline, webrtc)
    result = {"status": 201, "location": None, "connected": False, "delete_status": None}
    problem, code = None, 3
    started = None
    try:
        pipeline.set_state(Gst.State.PLAYING)
        for kind in ("video", "audio"):
            webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY,
                        Gst.Caps.from_string(RECV_CAPS[kind]))
        problem = offer_answer(args, pipeline, webrtc, result)
        if problem is None:
            started = time.monotonic()
            wait_until(pipeline, lambda: False, args.seconds)
    except PipelineError as error:
        problem, code = str(error), 1
        if not result["location"]:
            pipeline.set_state(Gst.State.NULL)
            fail(code, problem)
    unreachable = delete_session(args, result)
    if unreachable and problem is None:
        problem, code = unreachable, 2
    pipeline.set_state(Gst.State.NULL)
    with receiver.lock:
        video = list(receiver.frames["video"])
        result.update({"video_frames": len(video), "audio_frames": len(receiver.frames["audio"]),
                       "sizes": sorted(receiver.sizes),
                       "first_video_after": round(video[0] - started, 3) if video and started else None})
    emit(result)
    if problem:
        fail(code, problem)
    return 0


def main():
    parser = argparse.ArgumentParser(description="WHIP/WHEP peer on GStreamer's webrtcbin, for the integration tests")
    commands = parser.add_subparsers(dest="command", required=True)
    publishing = commands.add_parser("publish", help="publish a media file's H.264 or H.265 (as it is) and audio (as Opus)")
    publishing.add_argument("url")
    publishing.add_argument("--file", required=True, help="MP4/MOV with H.264 or H.265 video and optionally audio")
    publishing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    publishing.add_argument("--seconds", type=float, default=5.0, help="how long to stream once connected")
    playing = commands.add_parser("play", help="play a WHEP endpoint: count the decoded frames of each track")
    playing.add_argument("url")
    playing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    playing.add_argument("--seconds", type=float, default=5.0, help="how long to play once connected")
    args = parser.parse_args()
    Gst.init(None)
    return publish(args) if args.command == "publish" else play(args)


if __name__ == "__main__":
    sys.exit(main())
