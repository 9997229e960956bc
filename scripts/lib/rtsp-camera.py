#!/usr/bin/python3
# A fake IP camera for the RTSP integration tests: GStreamer's RTSP server (GstRtspServer, from Python) serving a
# media file as rtsp://127.0.0.1:PORT/PATH at 1x, like a live camera.
#
# Tests start it on a free port, wait for the one line `ready <port>` on stdout, point the worker at the URL and
# stop it with SIGTERM (or SIGINT). The file is an MPEG-TS (or MP4/MOV/FLV) with H.264 video (no B-frames) and
# optionally AAC audio. Nothing is transcoded: clients get the file's own H.264 NAL units and AAC frames.
#   video: demuxer ! h264parse ! rtph264pay pt=96 config-interval=0  (SPS/PPS in the SDP's sprop-parameter-sets;
#          in-band SPS/PPS and AUDs of the file are sent as they are, none are added)
#   audio: demuxer ! aacparse ! rtpmp4gpay pt=97  (mpeg4-generic, AAC-hbr: raw AAC frames, no ADTS headers)
#          --audio latm: ! rtpmp4apay pt=97 (MP4A-LATM, the StreamMuxConfig in the SDP's config, cpresent=0), the
#          same frames; --audio pcma / pcmu: decoded (faad), made 8 kHz mono and G.711 (alawenc ! rtppcmapay pt=8,
#          mulawenc ! rtppcmupay pt=0), as most IP cameras send their microphone
# The streams are moved to start at 0 (an FFmpeg-made TS starts at 0.7 s), so PLAY answers Range: npt=0- with
# an RTP-Info matching the first packets and no frame is clipped. Each client gets its own pipeline and the file
# from its start (--shared: one pipeline for all). The media is not seekable (a camera): a PLAY's Range is
# ignored. TCP interleaved and UDP transports both work. --loop plays the file again and again (the demuxer is
# seeked back at the end; timestamps carry on increasing, a long pull never ends; the file is read through once
# at start to learn its length). --user/--password require authentication (digest, or --auth basic).
# SIGUSR1 closes every client connection at once (a camera dropping its connections) while the server keeps
# listening, so clients can reconnect. --loss P drops P % of the RTP packets the payloaders make (seeded), as a lossy
# path would, and says how many at exit. Needs Debian's /usr/bin/python3 (python3-gi); see scripts/bootstrap.
#
#   rtsp-camera.py --port 8554 --path /cam --file cam.ts [--loop] [--shared]
#                  [--user U --password P [--auth digest|basic]] [--loss PERCENT] [--audio aac|latm|pcma|pcmu]
# --port 0 takes a free port; the `ready` line tells which.
import argparse
import os
import random
import signal
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import Gio, GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

Gst.init(None)  # before the classes below: their base types need GStreamer's types registered

DEMUXERS = {".ts": "tsdemux", ".m2ts": "tsdemux", ".mts": "tsdemux", ".mp4": "qtdemux", ".m4v": "qtdemux",
            ".mov": "qtdemux", ".flv": "flvdemux"}
PARSERS = {"video": "h264parse", "audio": "aacparse"}


def fail(message):
    print(f"rtsp-camera: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def stream_kind(caps):
    """'video' for H.264, 'audio' for AAC, None for anything else."""
    structure = caps.get_structure(0)
    if structure.get_name() == "video/x-h264":
        return "video"
    if structure.get_name() == "audio/mpeg" and structure.get_int("mpegversion")[1] in (2, 4):
        return "audio"
    return None


class Timing:
    """What the file's timestamps are: where its first frame starts and where its last one ends (the end only
    when looping: that needs the whole file read)."""

    def __init__(self, first, end):
        self.first = first
        self.end = end


def probe(path, demuxer, to_end):
    """The file's streams (kind -> caps) and Timing, by playing the file through demuxer and parsers into
    fakesinks: up to each stream's first frame, or to its end."""
    pipeline = Gst.Pipeline.new("probe")
    src = Gst.ElementFactory.make("filesrc")
    src.props.location = path
    demux = Gst.ElementFactory.make(demuxer)
    pipeline.add(src)
    pipeline.add(demux)
    src.link(demux)
    found = {}
    firsts = {}
    ends = []
    no_more_pads = []

    def pad_added(_demux, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        kind = stream_kind(caps)
        elements = []
        if kind is None or kind in found:
            print(f"rtsp-camera: ignoring a stream of {caps.get_structure(0).get_name()} (serving the first H.264 "
                  "video and AAC audio only)", file=sys.stderr, flush=True)
        else:
            found[kind] = caps
            elements.append(Gst.ElementFactory.make(PARSERS[kind]))

            def frame(_pad, info):
                buffer = info.get_buffer()
                if buffer.pts != Gst.CLOCK_TIME_NONE:
                    firsts.setdefault(kind, buffer.pts)
                    duration = buffer.duration if buffer.duration != Gst.CLOCK_TIME_NONE else 0
                    ends.append(buffer.pts + duration)
                return Gst.PadProbeReturn.OK if to_end else Gst.PadProbeReturn.REMOVE

            elements[0].get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, frame)
        sink = Gst.ElementFactory.make("fakesink")
        sink.set_property("sync", False)
        sink.set_property("async", False)  # no preroll: a demuxer's one thread would block in the first sink
        elements.append(sink)
        for element in elements:
            pipeline.add(element)
            element.sync_state_with_parent()
        for upstream, downstream in zip(elements, elements[1:]):
            upstream.link(downstream)
        pad.link(elements[0].get_static_pad("sink"))

    demux.connect("pad-added", pad_added)
    demux.connect("no-more-pads", lambda _demux: no_more_pads.append(True))
    pipeline.set_state(Gst.State.PLAYING)
    bus = pipeline.get_bus()
    while True:
        if not to_end and no_more_pads and len(firsts) == len(found):
            break
        msg = bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            pipeline.set_state(Gst.State.NULL)
            fail(f"cannot read {path}: {msg.parse_error()[0].message if msg else 'timed out'}")
        if msg.type == Gst.MessageType.EOS:
            break
    pipeline.set_state(Gst.State.NULL)
    if "video" not in found:
        fail(f"{path} has no H.264 video stream")
    first = min(firsts.values(), default=0)
    return found, Timing(first, max(ends, default=first))


class Looper:
    """Plays a media's file again and again: once every stream has reached its end, seeks the demuxer back to
    the start (from the main loop, not from a streaming thread). The seek's flushes stop at the retimers, so
    downstream of them the streams just go on; loop n's segments get base n * (the file's length)."""

    def __init__(self, demux, kinds, timing):
        self.demux = demux
        self.kinds = set(kinds)
        self.period = timing.end - timing.first
        self.ended = set()
        self.loops = 0
        self.lock = threading.Lock()

    def at_end(self, kind):
        with self.lock:
            self.ended.add(kind)
            if self.ended != self.kinds:
                return
            self.ended.clear()
        GLib.idle_add(self.restart)

    def restart(self):
        with self.lock:
            self.loops += 1
        self.demux.seek_simple(Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE, 0)
        return GLib.SOURCE_REMOVE

    def base(self):
        with self.lock:
            return self.loops * self.period


def retimer(kind, timing, looper):
    """A pad probe (buffers, segments, flushes, EOS) on the first element after the demuxer that moves a stream to
    start at 0: every buffer is moved earlier by the file's first timestamp and every segment is replaced by one
    from 0. A demuxer's segment starts where it likes (tsdemux: at the first video frame of an FFmpeg-made TS,
    0.7 s, after the first audio frame, which the RTSP server's sinks then clip), and GstRtspServer would answer
    PLAY with Range npt=0.7- and a video RTP-Info rtptime 0.7 s before the first video packet (FFmpeg turns
    that into a 0.7 s gap after the first frame). Buffers are changed in place: the demuxer does not share them.
    Looping (a Looper given): EOS is dropped and reported to the looper, the flushes of its seeks stop here, and
    segments get the looper's base, so the running time (and the RTP timestamps) carry on across loops, without
    a jump back or an overlap."""
    sending = []

    def retime(pad, info):
        if info.type & Gst.PadProbeType.BUFFER:
            buffer = info.get_buffer()
            if buffer.pts != Gst.CLOCK_TIME_NONE:
                buffer.pts = max(buffer.pts - timing.first, 0)
            if buffer.dts != Gst.CLOCK_TIME_NONE:
                buffer.dts = max(buffer.dts - timing.first, 0)
            return Gst.PadProbeReturn.OK
        event = info.get_event()
        if looper is not None and event.type in (Gst.EventType.FLUSH_START, Gst.EventType.FLUSH_STOP):
            return Gst.PadProbeReturn.DROP
        if looper is not None and event.type == Gst.EventType.EOS:
            looper.at_end(kind)
            return Gst.PadProbeReturn.DROP
        if event.type != Gst.EventType.SEGMENT or sending:
            return Gst.PadProbeReturn.OK
        old = event.parse_segment()
        if old.format != Gst.Format.TIME:
            return Gst.PadProbeReturn.OK
        segment = Gst.Segment()
        segment.init(Gst.Format.TIME)
        segment.rate = old.rate
        segment.applied_rate = old.applied_rate
        segment.base = looper.base() if looper is not None else old.base
        replacement = Gst.Event.new_segment(segment)
        replacement.set_seqnum(event.get_seqnum())
        sending.append(True)
        pad.send_event(replacement)
        sending.clear()
        return Gst.PadProbeReturn.DROP

    return retime


def not_seekable(_pad, info):
    """Answers a SEEKING query unfilled, i.e. seekable=false, like a camera. GstRtspServer would otherwise honour
    the Range of a client's PLAY (FFmpeg sends npt=0.000-) with a flushing KEY_UNIT seek, and with --shared a
    second client would restart everyone's stream."""
    if info.get_query().type == Gst.QueryType.SEEKING:
        return Gst.PadProbeReturn.HANDLED
    return Gst.PadProbeReturn.OK


class CameraFactory(GstRtspServer.RTSPMediaFactory):
    def __init__(self, path, demuxer, streams, timing, loop, loss=0.0, audio="aac"):
        super().__init__()
        self.audio = audio
        self.loss = loss
        # Seeded: a run drops the same packets each time. Counted for the line printed at exit.
        self.random = random.Random(20261129)
        self.sent = 0
        self.dropped = 0
        self.path = path
        self.demuxer = demuxer
        self.streams = streams
        self.timing = timing
        self.loop = loop

    def do_create_element(self, _url):
        bin_ = Gst.Bin.new(None)

        def make(factory, name=None, **props):
            element = Gst.ElementFactory.make(factory, name)
            if element is None:
                raise RuntimeError(f"GStreamer element {factory} is missing")
            for key, value in props.items():
                element.set_property(key.replace("_", "-"), value)
            bin_.add(element)
            return element

        src = make("filesrc", location=self.path)
        demux = make(self.demuxer)
        src.link(demux)
        chains = {"video": [make("queue"), make("h264parse", config_interval=0),
                            make("rtph264pay", "pay0", pt=96, config_interval=0)]}
        if "audio" in self.streams:
            if self.audio == "latm":
                payloader = [make("rtpmp4apay", "pay1", pt=97)]
            elif self.audio in ("pcma", "pcmu"):
                narrow = make("capsfilter", caps=Gst.Caps.from_string("audio/x-raw,rate=8000,channels=1"))
                encoder, pay, pt = ("alawenc", "rtppcmapay", 8) if self.audio == "pcma" else ("mulawenc", "rtppcmupay", 0)
                payloader = [make("faad"), make("audioconvert"), make("audioresample"), narrow, make(encoder),
                             make(pay, "pay1", pt=pt)]
            else:
                payloader = [make("rtpmp4gpay", "pay1", pt=97)]
            chains["audio"] = [make("queue"), make("aacparse")] + payloader
        looper = Looper(demux, chains, self.timing) if self.loop else None
        for kind, chain in chains.items():
            for upstream, downstream in zip(chain, chain[1:]):
                upstream.link(downstream)
            chain[0].get_static_pad("sink").add_probe(
                Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM | Gst.PadProbeType.EVENT_FLUSH,
                retimer(kind, self.timing, looper))
            chain[-1].get_static_pad("src").add_probe(Gst.PadProbeType.QUERY_UPSTREAM, not_seekable)
            if self.loss > 0:
                chain[-1].get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, self.lose)

        unlinked = dict(chains)

        def pad_added(_demux, pad):
            chain = unlinked.pop(stream_kind(pad.get_current_caps() or pad.query_caps(None)), None)
            if chain is not None:
                pad.link(chain[0].get_static_pad("sink"))

        demux.connect("pad-added", pad_added)
        return bin_


    def lose(self, _pad, _info):
        """--loss: an RTP packet the payloader made is dropped with that chance, as a lossy path would."""
        self.sent += 1
        if self.random.random() * 100 < self.loss:
            self.dropped += 1
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK


def main():
    # A child of a test process can come with these signals blocked (the mask is inherited from the thread that
    # spawned it): a camera that cannot be told to drop its clients or to stop would make the tests wait for nothing.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser(description="A fake RTSP IP camera serving a media file at 1x.")
    parser.add_argument("--port", type=int, required=True, help="listen on 127.0.0.1:PORT (0: any free port)")
    parser.add_argument("--path", default="/cam", help="mount point (default /cam)")
    parser.add_argument("--file", required=True, help="MPEG-TS (or MP4/MOV/FLV) file: H.264 and optional AAC")
    parser.add_argument("--user", help="require this user name")
    parser.add_argument("--password", help="and this password")
    parser.add_argument("--auth", choices=("digest", "basic"), default="digest",
                        help="authentication scheme offered (default digest)")
    parser.add_argument("--loop", action="store_true", help="play the file again and again")
    parser.add_argument("--shared", action="store_true", help="one pipeline for all clients")
    parser.add_argument("--loss", type=float, default=0.0,
                        help="drop this percentage of the RTP packets made (0 to 50; seeded), as a lossy path would")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"),
                        help="rtsps: every connection is TLS with this PEM certificate and key")
    parser.add_argument("--audio", choices=("aac", "latm", "pcma", "pcmu"), default="aac",
                        help="how the file's AAC is sent: mpeg4-generic (default), MP4A-LATM, or decoded to G.711")
    args = parser.parse_args()
    if (args.user is None) != (args.password is None):
        parser.error("--user and --password go together")
    if not args.path.startswith("/"):
        parser.error("--path must start with /")

    path = os.path.abspath(args.file)
    if not os.path.isfile(path):
        fail(f"no such file: {path}")
    demuxer = DEMUXERS.get(os.path.splitext(path)[1].lower())
    if demuxer is None:
        fail(f"unsupported file type {path} (use one of {', '.join(sorted(DEMUXERS))})")
    streams, timing = probe(path, demuxer, to_end=args.loop)

    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))

    if not 0 <= args.loss <= 50:
        parser.error("--loss must be from 0 to 50")
    factory = CameraFactory(path, demuxer, streams, timing, args.loop, args.loss, args.audio)
    factory.set_shared(args.shared)
    factory.set_protocols(GstRtsp.RTSPLowerTrans.UDP | GstRtsp.RTSPLowerTrans.TCP)

    auth = None
    if args.user is not None or args.tls:
        auth = GstRtspServer.RTSPAuth()
    if args.tls:
        auth.set_tls_certificate(Gio.TlsCertificate.new_from_files(args.tls[0], args.tls[1]))
    if args.user is None and auth is not None:
        # TLS without credentials: anyone may play.
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "anonymous")
        auth.set_default_token(token)
        server.set_auth(auth)
        factory.add_role_from_structure(Gst.Structure.new_from_string(
            "anonymous, media.factory.access=(boolean)true, media.factory.construct=(boolean)true"))
    if args.user is not None:
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "camera-user")
        if args.auth == "digest":
            auth.add_digest(args.user, args.password, token)
            auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
        else:
            auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
            auth.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
        server.set_auth(auth)
        factory.add_role_from_structure(Gst.Structure.new_from_string(
            "camera-user, media.factory.access=(boolean)true, media.factory.construct=(boolean)true"))

    server.get_mount_points().add_factory(args.path, factory)

    loop = GLib.MainLoop()
    if server.attach(None) == 0:
        fail(f"cannot listen on 127.0.0.1:{args.port}")

    def drop_clients():
        # A camera dropping every connection: close them all; the listening socket stays open.
        for client in server.client_filter(None):
            client.close()
        return GLib.SOURCE_CONTINUE

    def stop():
        loop.quit()
        return GLib.SOURCE_REMOVE

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, drop_clients)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, stop)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, stop)

    print(f"ready {server.get_bound_port()}", flush=True)
    loop.run()
    for client in server.client_filter(None):
        client.close()
    if args.loss > 0:
        print(f"rtsp-camera: dropped {factory.dropped} of {factory.sent} RTP packets", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
