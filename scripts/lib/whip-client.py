#!/usr/bin/env python3
"""A WHIP (RFC 9725) client for the integration tests: a real WebRTC publisher that is not ours (aiortc), sending a
media file's video as H.264 and its audio as Opus to a WHIP endpoint.

    python3 scripts/lib/whip-client.py publish URL --file MEDIA [--token T] [--seconds N] [--no-delete]
                                                   [--video-codec h264|vp8] [--content-type CT] [--come-back S]
    python3 scripts/lib/whip-client.py play URL [--token T] [--seconds N] [--come-back S]
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

Exit 2: the HTTP server could not be reached (or the file could not be opened; for the DELETE, the JSON line is
printed first); exit 3: ICE/DTLS did not connect within 20 s, or the answer could not be used (the JSON line is
printed first, with "connected": false). Needs `pip install aiortc` (which brings PyAV)."""
import argparse
import asyncio
import http.client
import json
import sys
import time
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
        player = MediaPlayer(args.file, loop=False)
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


async def play(args):
    return await with_come_back(args, play_once)


async def play_once(args):
    """WHEP: a recvonly offer (H.264 and Opus), then the decoded frames of each track counted for --seconds or until
    the server ends the session. (result, problem, exit code), as publish_once."""
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcrtpsender import RTCRtpSender

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    for kind, mime in (("video", "video/h264"), ("audio", "audio/opus")):
        transceiver = pc.addTransceiver(kind, direction="recvonly")
        transceiver.setCodecPreferences([codec for codec in RTCRtpSender.getCapabilities(kind).codecs
                                         if codec.mimeType.lower() == mime])
    counts = {"video": [], "audio": []}
    sizes = set()

    async def consume(track):
        while True:
            try:
                frame = await track.recv()
            except Exception:  # MediaStreamError once the connection closes
                return
            counts[track.kind].append(time.monotonic())
            if track.kind == "video":
                sizes.add(f"{frame.width}x{frame.height}")

    readers = []
    pc.on("track", lambda track: readers.append(asyncio.ensure_future(consume(track))))
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
    return result, None if connected else f"ICE/DTLS did not connect within {CONNECT_TIMEOUT} s", 3


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


def main():
    parser = argparse.ArgumentParser(description="WHIP (RFC 9725) client for the integration tests")
    commands = parser.add_subparsers(dest="command", required=True)

    publishing = commands.add_parser("publish", help="publish a media file over WebRTC")
    publishing.add_argument("url")
    publishing.add_argument("--file", required=True, help="media file with video and/or audio (decoded, any codec)")
    publishing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    publishing.add_argument("--seconds", type=float, default=5.0, help="how long to stream once connected")
    publishing.add_argument("--no-delete", action="store_true", help="leave the session for the server to end")
    publishing.add_argument("--video-codec", choices=("h264", "vp8"), default="h264",
                            help="the one video codec offered (vp8: to test a server that wants H.264)")
    publishing.add_argument("--content-type", default="application/sdp", help="to test the 415 answer")
    publishing.add_argument("--come-back", type=float, default=0, metavar="SECONDS",
                            help="when the server ends the session, POST again for up to SECONDS and stream once more")

    playing = commands.add_parser("play", help="play a WHEP endpoint: count the decoded frames of each track")
    playing.add_argument("url")
    playing.add_argument("--token", help="sent as Authorization: Bearer TOKEN on POST and DELETE")
    playing.add_argument("--seconds", type=float, default=5.0, help="how long to play once connected")
    playing.add_argument("--come-back", type=float, default=0, metavar="SECONDS",
                         help="when the server ends the session, POST again for up to SECONDS and play once more")

    requesting = commands.add_parser("request", help="send one plain HTTP request")
    requesting.add_argument("method")
    requesting.add_argument("url")
    requesting.add_argument("--token", help="sent as Authorization: Bearer TOKEN")
    requesting.add_argument("--body")
    requesting.add_argument("--content-type")

    args = parser.parse_args()
    if args.command == "publish":
        tolerate_late_consent_answers()
        return asyncio.run(publish(args))
    if args.command == "play":
        tolerate_late_consent_answers()
        return asyncio.run(play(args))
    return request(args)


if __name__ == "__main__":
    sys.exit(main())
