#!/usr/bin/env python3
"""A WHIP (RFC 9725) client for the integration tests: a real WebRTC publisher that is not ours (aiortc), sending a
media file's video as H.264 and its audio as Opus to a WHIP endpoint.

    python3 scripts/lib/whip-client.py publish URL (--file MEDIA | --stamp) [--token T] [--seconds N] [--no-delete]
                                                   [--video-codec h264|vp8] [--content-type CT] [--come-back S] [--loopback]
    python3 scripts/lib/whip-client.py play URL [--token T] [--seconds N] [--come-back S] [--read-stamps [--warmup S]]
                                                [--loopback]
    python3 scripts/lib/whip-client.py direct [--seconds N] [--warmup S]
    python3 scripts/lib/whip-client.py request METHOD URL [--token T] [--body TEXT] [--content-type CT]

publish POSTs a sendonly offer (video offers the one codec, no rtx; audio offers Opus only) with all its ICE
candidates in it (aiortc does not trickle). They are host candidates only: no STUN server is asked, and aioice
leaves out 127.0.0.1 and ::1, so the host needs another address (a server's 127.0.0.1 candidate is fine). On 201
it sets the answer, waits for ICE and DTLS to connect, streams for --seconds (default 5) or until the file ends,
DELETEs the session's Location (not with --no-delete) and closes. The file is decoded and encoded again (libx264
and libopus from PyAV), played at 1x, once. It prints one line of JSON:
    {"status": 201, "location": URL, "connected": true, "delete_status": 200, "seconds": 5.01, "ended": WHY,
     "sent": {"video": {"frames": N, "span": S}, "audio": {...}}}
where WHY is "seconds", "media" (the file ended first) or "disconnected" (the server went away first). With
--come-back S, a session the server ended is followed by POSTs to the same URL until one is answered 201 (for up to S
seconds), and that session's own result is "came_back" (as a browser page comes back to a job's new worker). Any other
answer to the POST prints {"status": CODE, "body": ..., "www_authenticate": ..., "allow": ...} and exits 0: the
tests judge the status. play is a WHEP viewer: a recvonly H.264 + Opus offer, the frames
each track decodes counted for --seconds (or until the server ends the session), then DELETE; it prints the counts,
the picture sizes, when the first video frame came, the longest gap between two, and how it "ended"; --come-back as
for publish. request sends one plain HTTP request and prints {"status", "headers" (lower-case names),
"body"}, for OPTIONS, PATCH, a DELETE of an unknown session and the like.

Glass-to-glass latency (scripts/bench webrtc-latency): publish --stamp sends, instead of a file, a 640x360 30 fps picture
with the wall clock (ms) drawn in each frame as it is made, and a 440 Hz tone as Opus; play --read-stamps reads each
decoded frame's stamp the moment aiortc hands it over and adds "stamps" to its JSON: frames read, rejected (a misread
stamp), and the latency (now - stamp, ms) p50/p95/p99/max of the frames after the first --warmup seconds (default 2).
direct is the baseline with no server: a stamped publisher and a reading viewer connected to each other in this one
process, for --seconds; it prints {"connected", "seconds", "sent", "stamps"}. --loopback (always so for direct) offers
127.0.0.1 as the one ICE candidate, so the media stays on loopback.

Exit 2: the HTTP server could not be reached (or the file could not be opened; for the DELETE, the JSON line is
printed first); exit 3: ICE/DTLS did not connect within 20 s, or the answer could not be used (the JSON line is
printed first, with "connected": false). Needs `pip install aiortc` (which brings PyAV), and numpy for the stamps."""
import argparse
import asyncio
import binascii
import http.client
import json
import math
import sys
import time
import types
import urllib.parse

CONNECT_TIMEOUT = 20  # seconds from the answer to "connected"; a loopback connect takes well under one
HTTP_TIMEOUT = 10


def fail(code, message):
    print(f"whip-client: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def emit(result):
    print(json.dumps(result), flush=True)


def http_request(method, url, body=None, headers=None):
    """One request on its own connection: (status, [(name, value)], body text). Raises OSError or HTTPException
    when the server cannot be reached or does not answer. Redirects are not followed: the tests judge them."""
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
        data = response.read()
        return response.status, response.getheaders(), data.decode("utf-8", errors="replace")
    finally:
        connection.close()


async def http_in_thread(method, url, body=None, headers=None):
    """http_request off the event loop, so ICE and RTCP keep being answered while the server thinks."""
    return await asyncio.get_running_loop().run_in_executor(None, http_request, method, url, body, headers)


def unreachable(method, url, error):
    return f"{method} {url}: {error or type(error).__name__}"


def header(headers, name):
    """A response header's value (repeated ones joined with ", " as RFC 9110 allows), or None."""
    values = [value for key, value in headers if key.lower() == name]
    return ", ".join(values) if values else None


def auth_headers(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


def counted(source, sent):
    """`source` as a track that notes each frame it hands the sender (how many, the first and last media time), so
    the caller can compare what was archived with what was sent: on a loaded machine aiortc's Python encoder sends
    fewer frames than the file has, and its player may run ahead, so the file is not the measure."""
    from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

    class Counted(MediaStreamTrack):
        kind = source.kind

        async def recv(self):
            try:
                frame = await source.recv()
            except MediaStreamError:
                self.stop()
                raise
            if frame.pts is not None and frame.time_base is not None:
                at = float(frame.pts * frame.time_base)
                note = sent.setdefault(self.kind, {"frames": 0, "first": at, "last": at})
                note["frames"] += 1
                note["first"], note["last"] = min(note["first"], at), max(note["last"], at)
            return frame

        def stop(self):
            super().stop()
            source.stop()

    return Counted()


def add_senders(pc, player, video_codec, sent):
    """A sendonly transceiver for each of the file's tracks, each offering one codec only: the tests are about
    the server's answer to a browser-like H.264 + Opus offer, and rtx is left out since nothing here resends."""
    from aiortc.rtcrtpsender import RTCRtpSender

    wanted = {"video": f"video/{video_codec}", "audio": "audio/opus"}
    tracks = []
    for source in (player.video, player.audio):
        if source is None:
            continue
        track = counted(source, sent)
        transceiver = pc.addTransceiver(track, direction="sendonly")
        transceiver.setCodecPreferences([codec for codec in RTCRtpSender.getCapabilities(track.kind).codecs
                                         if codec.mimeType.lower() == wanted[track.kind]])
        tracks.append(track)
    return tracks


# A stamped picture: the top 128 rows are 4 rows of 20 blocks, each 32x32 luma pixels on macroblock edges, black (16)
# or white (235): 80 bits, most significant first, of 16 fixed bits, the wall clock in ms (48 bits) and a CRC-16
# (CCITT) of those 6 bytes. A reader takes the mean of each block's centre 16x16 (the encoder's ringing is at the
# edges); a frame whose fixed bits or CRC do not match is rejected rather than counted.
STAMP_WIDTH, STAMP_HEIGHT = 640, 360  # at 30 fps: aiortc's VideoStreamTrack paces them
STAMP_BLOCK, STAMP_ROWS, STAMP_COLUMNS = 32, 4, 20
STAMP_SYNC = 0xA53C
BLACK, WHITE = 16, 235


def stamp_value(ms):
    return (STAMP_SYNC << 64) | (ms << 16) | binascii.crc_hqx(ms.to_bytes(6, "big"), 0xFFFF)


def stamped_frame(ms, pts, time_base):
    """A yuv420p frame carrying ms: the stamp's blocks, and below them a grey ramp with a square moving across it
    (so consecutive pictures differ beyond the stamp)."""
    import av
    import numpy as np

    value = stamp_value(ms)
    bits = np.array([(value >> (79 - i)) & 1 for i in range(80)], dtype=np.uint8).reshape(STAMP_ROWS, STAMP_COLUMNS)
    picture = np.full((STAMP_HEIGHT * 3 // 2, STAMP_WIDTH), 128, dtype=np.uint8)  # Y, then U and V (grey)
    picture[:STAMP_HEIGHT] = np.linspace(60, 190, STAMP_WIDTH, dtype=np.uint8)
    stamp = np.where(bits == 1, WHITE, BLACK).astype(np.uint8)
    picture[:STAMP_ROWS * STAMP_BLOCK] = np.repeat(np.repeat(stamp, STAMP_BLOCK, axis=0), STAMP_BLOCK, axis=1)
    left = (pts // 3000 * 8) % (STAMP_WIDTH - 64)  # 8 pixels a frame at aiortc's 90 kHz clock
    picture[200:264, left:left + 64] = WHITE
    frame = av.VideoFrame.from_ndarray(picture, format="yuv420p")
    frame.pts, frame.time_base = pts, time_base
    return frame


def read_stamp(frame):
    """The ms a decoded frame carries, or None when it is not a stamped picture or its stamp does not check."""
    import numpy as np

    if (frame.width, frame.height) != (STAMP_WIDTH, STAMP_HEIGHT):
        return None
    if frame.format.name != "yuv420p":
        frame = frame.reformat(format="yuv420p")
    plane = frame.planes[0]
    luma = np.frombuffer(plane, dtype=np.uint8).reshape(-1, plane.line_size)[:STAMP_ROWS * STAMP_BLOCK, :STAMP_WIDTH]
    quarter = STAMP_BLOCK // 4
    blocks = luma.reshape(STAMP_ROWS, STAMP_BLOCK, STAMP_COLUMNS, STAMP_BLOCK)
    centres = blocks[:, quarter:-quarter, :, quarter:-quarter].mean(axis=(1, 3)).flatten()
    value = int("".join("1" if mean > (BLACK + WHITE) / 2 else "0" for mean in centres), 2)
    ms = (value >> 16) & ((1 << 48) - 1)
    return ms if stamp_value(ms) == value else None


def stamped_source():
    """A player-like pair of tracks: .video the stamped picture at 30 fps (the stamp is the wall clock when aiortc
    asks for the frame, just before it encodes it), .audio a 440 Hz tone, 20 ms frames of 48 kHz mono."""
    import fractions

    import av
    import numpy as np
    from aiortc.mediastreams import MediaStreamError, MediaStreamTrack, VideoStreamTrack

    class StampedVideo(VideoStreamTrack):
        async def recv(self):
            pts, time_base = await self.next_timestamp()
            return stamped_frame(round(time.time() * 1000), pts, time_base)

    class Tone(MediaStreamTrack):
        kind = "audio"
        rate, samples = 48000, 960

        async def recv(self):
            if self.readyState != "live":
                raise MediaStreamError
            if not hasattr(self, "start"):
                self.start, self.pts = time.time(), 0
            else:
                self.pts += self.samples
                await asyncio.sleep(self.start + self.pts / self.rate - time.time())
            t = (self.pts + np.arange(self.samples)) / self.rate
            tone = (np.sin(2 * np.pi * 440 * t) * 3000).astype(np.int16).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(tone, format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = self.rate, self.pts, fractions.Fraction(1, self.rate)
            return frame

    return types.SimpleNamespace(video=StampedVideo(), audio=Tone())


def percentile(ordered, p):
    """Nearest rank: the smallest value with at least p % of the values at or below it."""
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def figures(values, full=False):
    """p50, p95 and max of values (ms); full adds the count, min, p99 and mean."""
    ordered = sorted(values)
    if not ordered:
        return {"count": 0}
    named = {"count": len(ordered), "min": ordered[0], "p50": percentile(ordered, 50), "p95": percentile(ordered, 95),
             "p99": percentile(ordered, 99), "max": ordered[-1], "mean": sum(ordered) / len(ordered)}
    return {name: value if name == "count" else round(value, 1) for name, value in named.items()
            if full or name in ("p50", "p95", "max")}


VIDEO_ARRIVALS = {}  # filled by time_video_arrivals' jitter buffers


def time_video_arrivals():
    """VIDEO_ARRIVALS, {frame timestamp: when its last packet arrived}, filled from now on for every video frame
    aiortc's jitter buffer completes, keyed as the decoder's frames carry it (their pts: the RTP timestamp less the
    first frame's). aiortc hands a frame to its decoder only once the next frame's first packet comes, so this splits a
    frame's latency into the way here (encode, send, a server) and the wait and decode in the viewer. Built on aiortc's
    internals (peer connections made before this call are not timed): if they are not there, the dict stays empty and
    the split is left out."""
    import aiortc.rtcrtpreceiver as receiver

    base = getattr(receiver, "JitterBuffer", None)
    if base is None or getattr(base, "timed", False):
        return VIDEO_ARRIVALS

    class Timed(base):
        timed = True

        def add(self, packet):
            if not self._is_video:
                return super().add(packet)
            last_packets = self.__dict__.setdefault("last_packets", {})
            if packet.marker:
                last_packets[packet.timestamp] = time.time()
            pli, frame = super().add(packet)
            if frame is not None:
                origin = self.__dict__.setdefault("origin", frame.timestamp)
                VIDEO_ARRIVALS[(frame.timestamp - origin) % (1 << 32)] = last_packets.pop(frame.timestamp, None)
            return pli, frame

    receiver.JitterBuffer = Timed
    return VIDEO_ARRIVALS


class Stamps:
    """What a viewer read: note(frame) at the moment a decoded frame is handed over; result() for the JSON line.
    Frames in the first `warmup` seconds from the first one read are left out of the figures (a viewer's first
    frames may be a GOP cache's, older than the rest, or slowed by the start) and their worst is reported apart. Made before the peer
    connection: it times the frames' packets from then on."""

    def __init__(self, warmup):
        import numpy  # noqa: F401  (imported now, not in the first frame's latency)

        self.warmup, self.first, self.read, self.rejected = warmup, None, 0, 0
        self.arrivals = time_video_arrivals()
        self.arrivals.clear()
        self.kept, self.early = [], []

    def note(self, frame):
        now = time.time()
        ms = read_stamp(frame)
        if ms is None:
            self.rejected += 1
            return
        self.read += 1
        self.first = self.first if self.first is not None else now
        arrived = self.arrivals.pop(frame.pts, None)
        (self.kept if now - self.first >= self.warmup else self.early).append((now * 1000 - ms, ms, arrived))

    def result(self):
        split = [(arrived * 1000 - ms, latency - (arrived * 1000 - ms)) for latency, ms, arrived in self.kept if arrived]
        result = {"read": self.read, "rejected": self.rejected, "warmup_s": self.warmup, "warmup_frames": len(self.early),
                  "warmup_max_ms": round(max(row[0] for row in self.early), 1) if self.early else None,
                  "latency_ms": figures([row[0] for row in self.kept], full=True)}
        if split:
            result["to_last_packet_ms"] = figures([row[0] for row in split])
            result["last_packet_to_frame_ms"] = figures([row[1] for row in split])
        return result


async def gathering_complete(pc):
    """aiortc gathers every candidate inside setLocalDescription, so this is normally done already; WHIP wants
    them all in the offer (no trickle here), so make sure rather than trust it."""
    while pc.iceGatheringState != "complete":
        await asyncio.sleep(0.05)


def state_reached(pc, states):
    """A future done once pc's connection state is one of states (at once if it already is)."""
    future = asyncio.get_running_loop().create_future()

    def check():
        if pc.connectionState in states and not future.done():
            future.set_result(pc.connectionState)

    pc.on("connectionstatechange", check)
    check()
    return future


async def wait_connected(pc):
    """True once ICE and DTLS are up; False if they fail or CONNECT_TIMEOUT passes first."""
    try:
        return await asyncio.wait_for(state_reached(pc, ("connected", "failed", "closed")),
                                      CONNECT_TIMEOUT) == "connected"
    except asyncio.TimeoutError:
        return False


async def stream(pc, tracks, seconds):
    """Let the senders run until seconds pass, every track has ended (MediaPlayer stops a track at the file's
    end) or the connection drops; which came first."""
    loop = asyncio.get_running_loop()
    media_ended = loop.create_future()
    remaining = set(tracks)

    def on_ended(track):
        remaining.discard(track)
        if not remaining and not media_ended.done():
            media_ended.set_result(None)

    def transport_down():
        # A sender also stops its track when DTLS goes away (its next send fails), and that comes before the
        # connection state changes: so an ended track means the file ended only while DTLS is still up.
        return any(sender.transport.state != "connected" for sender in pc.getSenders() if sender.transport)

    for track in tracks:
        track.on("ended", lambda track=track: on_ended(track))
    dropped = asyncio.ensure_future(state_reached(pc, ("failed", "closed")))
    timer = asyncio.ensure_future(asyncio.sleep(seconds))
    done, pending = await asyncio.wait([media_ended, dropped, timer], return_when=asyncio.FIRST_COMPLETED)
    for future in pending:
        future.cancel()
    if dropped in done or (media_ended in done and transport_down()):
        return "disconnected"
    return "media" if media_ended in done else "seconds"


async def publish(args):
    return await with_come_back(args, publish_once)


async def with_come_back(args, once):
    """One session (once(args): publish_once or play_once), printed as JSON; exit 2 if no server was reached. With
    --come-back, a session the server ended (its close_notify: a worker handing its job over ends its sessions so) is
    followed by POSTs to the same URL, as a browser page would, every 0.5 s until a server answers 201 or the seconds
    pass; that session's result (its own counts) is "came_back", with "problem" if it did not connect, or
    {"status": the last answer (null: unreachable), "gave_up_after": seconds}."""
    result, problem, code = await once(args)
    if result.get("status") is None:
        fail(code, problem)
    if args.come_back and result.get("ended") == "disconnected":
        give_up = time.monotonic() + args.come_back
        attempts = 0
        while True:
            attempts += 1
            again, again_problem, _ = await once(args)
            if again.get("status") == 201:
                again.update({"problem": again_problem, "attempts": attempts})
                result["came_back"] = again
                break
            if time.monotonic() >= give_up:
                result["came_back"] = {"status": again.get("status"), "gave_up_after": args.come_back, "attempts": attempts}
                break
            await asyncio.sleep(0.5)
    emit(result)
    if problem:
        fail(code, problem)
    return 0


async def publish_once(args):
    """One session: (result, problem, exit code). A POST that reaches no server gives {"status": None}; any answer
    but 201 gives its status, body and headers, with no problem (the tests judge the status)."""
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
    from aiortc.contrib.media import MediaPlayer

    try:
        player = stamped_source() if args.stamp else MediaPlayer(args.file, loop=False)
    except Exception as error:  # PyAV raises its own FileNotFoundError, InvalidDataError...
        fail(2, f"cannot open {args.file}: {error}")
    # No ICE servers: aiortc would otherwise ask Google's STUN server, making the tests depend on the internet
    # and slower; host candidates are all a local server needs.
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    sent = {}
    tracks = add_senders(pc, player, args.video_codec, sent)
    if not tracks:
        fail(2, f"{args.file} has neither video nor audio")

    async def close():
        await pc.close()
        for track in tracks:  # stops the player's decoding thread if the senders never did
            track.stop()

    await pc.setLocalDescription(await pc.createOffer())
    await gathering_complete(pc)
    headers = {"Content-Type": args.content_type, **auth_headers(args.token)}
    try:
        status, response_headers, body = await http_in_thread("POST", args.url, pc.localDescription.sdp, headers)
    except (OSError, http.client.HTTPException) as error:
        await close()
        return {"status": None}, unreachable("POST", args.url, error), 2
    if status != 201:
        await close()
        return ({"status": status, "body": body, "www_authenticate": header(response_headers, "www-authenticate"),
                 "allow": header(response_headers, "allow")}, None, 0)

    location = header(response_headers, "location")
    location = urllib.parse.urljoin(args.url, location) if location else None
    result = {"status": 201, "location": location, "connected": False, "delete_status": None, "seconds": 0.0}
    problem, code = None, 3
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    except Exception as error:  # a malformed or mismatched answer: nothing can connect
        problem = f"the answer could not be used: {type(error).__name__}: {error}"
    if problem is None:
        result["connected"] = await wait_connected(pc)
        if not result["connected"]:
            problem = (f"ICE/DTLS did not connect within {CONNECT_TIMEOUT} s "
                       f"(ICE {pc.iceConnectionState}, connection {pc.connectionState})")
    if result["connected"]:
        started = time.monotonic()
        result["ended"] = await stream(pc, tracks, args.seconds)
        result["seconds"] = round(time.monotonic() - started, 3)

    # Delete even a session that never connected, so a failed test does not leave it behind on the server; not one
    # the server ended when coming back (its worker may be gone: the caller asks the new one about it).
    server_ended = args.come_back and result.get("ended") == "disconnected"
    if location and not args.no_delete and not server_ended:
        try:
            result["delete_status"], _, _ = await http_in_thread("DELETE", location, headers=auth_headers(args.token))
        except (OSError, http.client.HTTPException) as error:
            if problem is None:  # else the first failure is the one that matters
                problem, code = unreachable("DELETE", location, error), 2
    await close()
    # What the senders took, per track: frames and the media time from the first to the last (the last few may still
    # have been on their way when DELETE came).
    result["sent"] = {kind: {"frames": note["frames"], "span": round(note["last"] - note["first"], 3)} for kind, note in sent.items()}
    return result, problem, code


async def consume(track, arrived):
    """Takes a received track's decoded frames until the connection closes, handing each to arrived(kind, frame)."""
    while True:
        try:
            frame = await track.recv()
        except Exception:  # MediaStreamError once the connection closes
            return
        arrived(track.kind, frame)


async def play(args):
    return await with_come_back(args, play_once)


async def play_once(args):
    """WHEP: a recvonly offer (H.264 and Opus), then the decoded frames of each track counted for --seconds or until
    the server ends the session. (result, problem, exit code), as publish_once."""
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcrtpsender import RTCRtpSender

    stamps = Stamps(args.warmup) if args.read_stamps else None
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    for kind, mime in (("video", "video/h264"), ("audio", "audio/opus")):
        transceiver = pc.addTransceiver(kind, direction="recvonly")
        transceiver.setCodecPreferences([codec for codec in RTCRtpSender.getCapabilities(kind).codecs
                                         if codec.mimeType.lower() == mime])
    counts = {"video": [], "audio": []}
    sizes = set()

    def frame_arrived(kind, frame):
        if kind == "video" and stamps:
            stamps.note(frame)
        counts[kind].append(time.monotonic())
        if kind == "video":
            sizes.add(f"{frame.width}x{frame.height}")

    readers = []
    pc.on("track", lambda track: readers.append(asyncio.ensure_future(consume(track, frame_arrived))))
    await pc.setLocalDescription(await pc.createOffer())
    await gathering_complete(pc)
    headers = {"Content-Type": "application/sdp", **auth_headers(args.token)}
    try:
        status, response_headers, body = await http_in_thread("POST", args.url, pc.localDescription.sdp, headers)
    except (OSError, http.client.HTTPException) as error:
        await pc.close()
        return {"status": None}, unreachable("POST", args.url, error), 2
    if status != 201:
        await pc.close()
        return {"status": status, "body": body, "www_authenticate": header(response_headers, "www-authenticate")}, None, 0
    location = header(response_headers, "location")
    location = urllib.parse.urljoin(args.url, location) if location else None
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    connected = await wait_connected(pc)
    started = time.monotonic()
    ended = None
    if connected:
        dropped = asyncio.ensure_future(state_reached(pc, ("failed", "closed")))
        done, _ = await asyncio.wait([dropped], timeout=args.seconds)
        dropped.cancel()
        ended = "disconnected" if dropped in done else "seconds"
    delete_status = None
    # Not a session the server ended when coming back: its worker may be gone, and the caller asks the new one.
    if location and not (args.come_back and ended == "disconnected"):
        try:
            delete_status, _, _ = await http_in_thread("DELETE", location, headers=auth_headers(args.token))
        except (OSError, http.client.HTTPException):
            delete_status = None
    await pc.close()
    for reader in readers:
        reader.cancel()
    video = counts["video"]
    gaps = [later - earlier for earlier, later in zip(video, video[1:])]
    result = {"status": 201, "location": location, "connected": connected, "delete_status": delete_status, "ended": ended,
              "video_frames": len(video), "audio_frames": len(counts["audio"]), "sizes": sorted(sizes),
              "first_video_after": round(video[0] - started, 3) if video else None,
              "longest_video_gap": round(max(gaps), 3) if gaps else None}
    if stamps:
        result["stamps"] = stamps.result()
    return result, None if connected else f"ICE/DTLS did not connect within {CONNECT_TIMEOUT} s", 3


async def direct(args):
    """The baseline of scripts/bench webrtc-latency: what aiortc and PyAV add with no server between them. A stamped
    publisher's offer goes straight to a viewer peer connection in this process (loopback only), which answers it and
    reads the stamps, for --seconds once both are connected."""
    from aiortc import RTCConfiguration, RTCPeerConnection

    stamps = Stamps(args.warmup)
    publisher = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    viewer = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    sent = {}
    tracks = add_senders(publisher, stamped_source(), "h264", sent)
    readers = []

    def frame_arrived(kind, frame):
        if kind == "video":
            stamps.note(frame)

    viewer.on("track", lambda track: readers.append(asyncio.ensure_future(consume(track, frame_arrived))))
    await publisher.setLocalDescription(await publisher.createOffer())
    await gathering_complete(publisher)
    await viewer.setRemoteDescription(publisher.localDescription)
    await viewer.setLocalDescription(await viewer.createAnswer())
    await gathering_complete(viewer)
    await publisher.setRemoteDescription(viewer.localDescription)
    connected = all(await asyncio.gather(wait_connected(publisher), wait_connected(viewer)))
    started = time.monotonic()
    if connected:
        await asyncio.sleep(args.seconds)
    seconds = round(time.monotonic() - started, 3)
    await publisher.close()
    await viewer.close()
    for track in tracks:
        track.stop()
    for reader in readers:
        reader.cancel()
    emit({"connected": connected, "seconds": seconds, "stamps": stamps.result(),
          "sent": {kind: {"frames": note["frames"], "span": round(note["last"] - note["first"], 3)} for kind, note in sent.items()}})
    if not connected:
        fail(3, f"the two peer connections did not connect within {CONNECT_TIMEOUT} s")
    return 0


def request(args):
    headers = auth_headers(args.token)
    if args.content_type:
        headers["Content-Type"] = args.content_type
    try:
        status, response_headers, body = http_request(args.method.upper(), args.url, args.body, headers)
    except (OSError, http.client.HTTPException) as error:
        fail(2, unreachable(args.method, args.url, error))
    names = dict.fromkeys(name.lower() for name, _ in response_headers)
    emit({"status": status, "headers": {name: header(response_headers, name) for name in names}, "body": body})
    return 0


def tolerate_late_consent_answers():
    """aioice checks consent (RFC 7675) every ~5 s with one request and no retransmission, and gives the session up
    after 6 in a row go unanswered within its 0.5 s timeout. A starved aiortc (encoding video in Python beside a
    ThreadSanitizer build on two cores) reads the server's answers after its own timeout fired, and hung up on a
    healthy server after 30 s. RFC 7675 allows 30 s without any answer; 60 tries (5 min) keeps it from hanging up on
    its own lateness. A server that stops answering is still found: the tests judge the media, not the consent."""
    import aioice.ice

    aioice.ice.CONSENT_FAILURES = 60


def loopback_candidates():
    """aioice offers every address of the machine but 127.0.0.1 and ::1; a loopback measurement offers 127.0.0.1 alone,
    so that neither peer's media leaves it."""
    import aioice.ice

    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]


def main():
    parser = argparse.ArgumentParser(description="WHIP (RFC 9725) client for the integration tests")
    commands = parser.add_subparsers(dest="command", required=True)

    publishing = commands.add_parser("publish", help="publish a media file over WebRTC")
    publishing.add_argument("url")
    source = publishing.add_mutually_exclusive_group(required=True)
    source.add_argument("--file", help="media file with video and/or audio (decoded, any codec)")
    source.add_argument("--stamp", action="store_true",
                        help="send a 640x360 30 fps picture with the wall clock drawn in it, and a tone, instead of a file")
    publishing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    publishing.add_argument("--seconds", type=float, default=5.0, help="how long to stream once connected")
    publishing.add_argument("--no-delete", action="store_true", help="leave the session for the server to end")
    publishing.add_argument("--video-codec", choices=("h264", "vp8"), default="h264",
                            help="the one video codec offered (vp8: to test a server that wants H.264)")
    publishing.add_argument("--content-type", default="application/sdp", help="to test the 415 answer")
    publishing.add_argument("--come-back", type=float, default=0, metavar="SECONDS",
                            help="when the server ends the session, POST again for up to SECONDS and stream once more")
    publishing.add_argument("--loopback", action="store_true", help="offer 127.0.0.1 as the one ICE candidate")

    playing = commands.add_parser("play", help="play a WHEP endpoint: count the decoded frames of each track")
    playing.add_argument("url")
    playing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    playing.add_argument("--seconds", type=float, default=5.0, help="how long to play once connected")
    playing.add_argument("--come-back", type=float, default=0, metavar="SECONDS",
                         help="when the server ends the session, POST again for up to SECONDS and play once more")
    playing.add_argument("--read-stamps", action="store_true",
                         help="read each video frame's stamp (publish --stamp) and report the latency")
    playing.add_argument("--warmup", type=float, default=2.0, metavar="SECONDS",
                         help="with --read-stamps: leave the frames of the first SECONDS out of the figures")
    playing.add_argument("--loopback", action="store_true", help="offer 127.0.0.1 as the one ICE candidate")

    directly = commands.add_parser("direct", help="the latency baseline: a stamped publisher to a reading viewer, no server")
    directly.add_argument("--seconds", type=float, default=30.0, help="how long to stream once connected")
    directly.add_argument("--warmup", type=float, default=2.0, metavar="SECONDS",
                          help="leave the frames of the first SECONDS out of the figures")

    requesting = commands.add_parser("request", help="send one plain HTTP request")
    requesting.add_argument("method")
    requesting.add_argument("url")
    requesting.add_argument("--token", help="sent as Authorization: Bearer TOKEN")
    requesting.add_argument("--body")
    requesting.add_argument("--content-type")

    args = parser.parse_args()
    if args.command in ("publish", "play", "direct"):
        tolerate_late_consent_answers()
        if args.command == "direct" or args.loopback:
            loopback_candidates()
    if args.command == "publish":
        return asyncio.run(publish(args))
    if args.command == "play":
        return asyncio.run(play(args))
    if args.command == "direct":
        return asyncio.run(direct(args))
    return request(args)


if __name__ == "__main__":
    sys.exit(main())
