#!/usr/bin/python3
"""The peer of `scripts/bench webrtc`: a WHIP server built of GStreamer 1.22, one pipeline per publisher,
    webrtcbin → rtph264depay ! h264parse                                              ┐
              → rtpopusdepay ! opusdec ! audioconvert ! audioresample ! ENCODER ! aacparse ┴ flvmux ! rtmp2sink
what a GStreamer user restreaming WHIP to RTMP with the sound made AAC would run. Not for the tests (they use the
product): for comparing CPU and memory in the same run. ENCODER is voaacenc (GStreamer's own AAC encoder, what its
users reach for) or avenc_aac (gst-libav: FFmpeg's AAC encoder with its default coder, the one Sluice uses), both at
64 kb/s.

    /usr/bin/python3 scripts/lib/webrtcbin-whip-server.py --port P --rtmp rtmp://HOST:PORT/APP --prefix ff- \
        [--aac-encoder voaacenc|avenc_aac]

A POST of an SDP offer to http://127.0.0.1:P/ANY/NAME answers 201 with the answer (every candidate in it, after
gathering: no trickle) and a Location to DELETE, and publishes to RTMP_URL/PREFIX+NAME. "ready" is printed on stdout
once the port listens; one line per session on stderr when it is made and when it ends. No token is asked.
webrtcbin is full ICE on libnice, which leaves out 127.0.0.1: the publishers need another host address."""
import argparse
import importlib.util
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import Gst, GstSdp, GstWebRTC  # noqa: E402

# The publisher's helpers (webrtcbin's promises, a branch bin with ghost pads), shared rather than written twice.
_spec = importlib.util.spec_from_file_location("webrtcbin_peer", os.path.join(os.path.dirname(__file__), "webrtcbin-peer.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

RECEIVE_BRANCHES = {
    "H264": "queue name=in ! rtph264depay ! h264parse ! queue name=out",
    "OPUS": "queue name=in ! rtpopusdepay ! opusdec ! audioconvert ! audioresample ! {encoder} bitrate=64000 "
            "! aacparse ! queue name=out",
}
MUX_PADS = {"H264": "video", "OPUS": "audio"}


class Session:
    """One publisher: its pipeline from webrtcbin to rtmp2sink. The depayloading branches are linked as webrtcbin
    makes its source pads (when the first RTP of each stream arrives); flvmux's two pads exist from the start, so it
    waits for both streams."""

    def __init__(self, name, target, encoder):
        self.name, self.target, self.encoder = name, target, encoder
        self.pipeline = Gst.Pipeline.new(name)
        self.webrtc = peer.make_webrtcbin(self.pipeline)
        self.mux = Gst.ElementFactory.make("flvmux")
        self.mux.set_property("streamable", True)
        sink = Gst.ElementFactory.make("rtmp2sink")
        sink.set_property("location", target)
        for element in (self.mux, sink):
            self.pipeline.add(element)
        self.mux.link(sink)
        self.pads = {kind: self.mux.request_pad_simple(kind) for kind in ("video", "audio")}
        self.webrtc.connect("pad-added", self.pad_added)

    def pad_added(self, _webrtc, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        encoding = pad.get_current_caps().get_structure(0).get_string("encoding-name")
        if encoding not in RECEIVE_BRANCHES:
            print(f"whip-server: {self.name}: {encoding} not restreamed", file=sys.stderr, flush=True)
            return
        branch = peer.branch_bin(RECEIVE_BRANCHES[encoding].format(encoder=self.encoder))
        self.pipeline.add(branch)
        branch.get_static_pad("src").link(self.pads[MUX_PADS[encoding]])
        branch.sync_state_with_parent()
        pad.link(branch.get_static_pad("sink"))

    def answer(self, offer_text):
        """Takes the offer, answers it, and returns the answer with every candidate (PipelineError if not)."""
        result, message = GstSdp.SDPMessage.new_from_text(offer_text)
        if result != GstSdp.SDPResult.OK:
            raise peer.PipelineError(f"the offer is not SDP ({result.value_nick})")
        self.pipeline.set_state(Gst.State.PLAYING)
        offer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.OFFER, message)
        peer.promised(self.webrtc, "set-remote-description", offer)
        answer = peer.promised(self.webrtc, "create-answer", None, field="answer")
        peer.promised(self.webrtc, "set-local-description", answer)
        complete = GstWebRTC.WebRTCICEGatheringState.COMPLETE
        if not peer.wait_until(self.pipeline, lambda: self.webrtc.get_property("ice-gathering-state") == complete,
                               peer.GATHER_TIMEOUT):
            raise peer.PipelineError(f"ICE gathering did not complete within {peer.GATHER_TIMEOUT} s")
        return self.webrtc.get_property("local-description").sdp.as_text()

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


class Server:
    def __init__(self, rtmp, prefix, encoder):
        self.rtmp, self.prefix, self.encoder = rtmp.rstrip("/"), prefix, encoder
        self.lock = threading.Lock()
        self.sessions = {}  # resource path -> Session

    def post(self, path, offer):
        name = path.rstrip("/").rsplit("/", 1)[-1] or "stream"
        session = Session(name, f"{self.rtmp}/{self.prefix}{name}", self.encoder)
        try:
            answer = session.answer(offer)
        except peer.PipelineError:
            session.stop()
            raise
        location = f"{path.rstrip('/')}/session"
        with self.lock:
            previous = self.sessions.pop(location, None)
            self.sessions[location] = session
        if previous is not None:
            previous.stop()
        print(f"whip-server: {name} -> {session.target}", file=sys.stderr, flush=True)
        return answer, location

    def delete(self, path):
        with self.lock:
            session = self.sessions.pop(path, None)
        if session is None:
            return False
        session.stop()
        print(f"whip-server: {session.name} ended", file=sys.stderr, flush=True)
        return True

    def stop_all(self):
        with self.lock:
            sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            session.stop()


def handler_for(server):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def reply(self, status, body=b"", headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            offer = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", errors="replace")
            path = urllib.parse.urlsplit(self.path).path
            try:
                answer, location = server.post(path, offer)
            except peer.PipelineError as error:
                self.reply(400, f"{error}\n".encode())
                return
            self.reply(201, answer.encode(), [("Content-Type", "application/sdp"), ("Location", location)])

        def do_DELETE(self):
            found = server.delete(urllib.parse.urlsplit(self.path).path)
            self.reply(200 if found else 404)

    return Handler


def main():
    parser = argparse.ArgumentParser(description="WHIP to RTMP on GStreamer's webrtcbin: scripts/bench webrtc's peer")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rtmp", required=True, help="rtmp://HOST:PORT/APP: each publisher goes to APP/PREFIX+NAME")
    parser.add_argument("--prefix", default="ff-")
    parser.add_argument("--aac-encoder", choices=("voaacenc", "avenc_aac"), default="voaacenc")
    args = parser.parse_args()
    Gst.init(None)
    for element in ("webrtcbin", "rtph264depay", "rtpopusdepay", "opusdec", args.aac_encoder, "flvmux", "rtmp2sink"):
        if Gst.ElementFactory.find(element) is None:
            peer.fail(1, f"no {element}: install gstreamer1.0-plugins-bad, -good, gstreamer1.0-libav and gstreamer1.0-nice")
    server = Server(args.rtmp, args.prefix, args.aac_encoder)
    http = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(server))
    print("ready", flush=True)
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
