#!/usr/bin/env python3
"""A real Enhanced RTMP peer for the interop tests: FFmpeg 8 through PyAV (pip's `av`, with libx265, libsvtav1,
libdav1d and libopus).

  enhanced-rtmp-peer.py make OUT.mp4 --video hevc|av1 --audio aac|opus [--seconds N]
      encodes testsrc2 320x240 30 fps (a keyframe every second) and a sine with PyAV's encoders
  enhanced-rtmp-peer.py publish FILE rtmp://HOST:PORT/APP/KEY [--enhanced-codecs hvc1,av01] [--unpaced]
      remuxes FILE to FLV over RTMP at 1x (FFmpeg's flvenc writes Enhanced RTMP tags for HEVC, AV1 and Opus);
      with --unpaced and a path instead of a URL, as fast as it goes into an FLV file
  enhanced-rtmp-peer.py mux OUT.flv INPUT...
      every audio and video stream of the inputs in one FLV file: FFmpeg 8 writes the second and later streams of a
      kind as Enhanced RTMP multitrack tags (track 1, 2, ...)
  enhanced-rtmp-peer.py listen rtmp://127.0.0.1:PORT/APP/KEY --json OUT [--timeout S]
      one-client RTMP server (FFmpeg's listen mode); says "listening" on stderr once the port is bound, then
      decodes everything the client publishes
  enhanced-rtmp-peer.py decode FILE --json OUT
      decodes a file

`listen` and `decode` write a JSON summary: per kind (its first stream), the codec, the number of decoded frames and
an MD5 of each frame's visible samples (comparable with `decode` of the source); the same for every stream under
"tracks"; and every error FFmpeg logged or raised.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
import time

import av
import av.logging


def make(args):
    video_codec = {"hevc": "libx265", "av1": "libsvtav1"}[args.video]
    audio_codec = {"aac": "aac", "opus": "libopus"}[args.audio]
    seconds = args.seconds
    picture = av.open(f"testsrc2=size=320x240:rate=30:duration={seconds}", format="lavfi")
    rate = 48000
    sound = av.open(f"sine=frequency=440:sample_rate={rate}:beep_factor=3:duration={seconds}", format="lavfi")
    out = av.open(args.output, "w")
    video = out.add_stream(video_codec, rate=30)
    video.width, video.height, video.pix_fmt = 320, 240, "yuv420p"
    if args.video == "hevc":
        video.options = {"x265-params": "keyint=30:min-keyint=30:bframes=2:log-level=error"}
    else:
        video.options = {"svtav1-params": "keyint=30", "preset": "10"}
    audio = out.add_stream(audio_codec, rate=rate)
    audio.layout = "stereo"
    for frame in picture.decode(video=0):
        frame.pict_type = av.video.frame.PictureType.NONE
        for packet in video.encode(frame):
            out.mux(packet)
    for packet in video.encode(None):
        out.mux(packet)
    for frame in sound.decode(audio=0):
        frame.pts = None
        for packet in audio.encode(frame):
            out.mux(packet)
    for packet in audio.encode(None):
        out.mux(packet)
    out.close()


def publish(args):
    source = av.open(args.input)
    options = {}
    if args.enhanced_codecs:
        options["rtmp_enhanced_codecs"] = args.enhanced_codecs
    out = av.open(args.url, "w", format="flv", options=options)
    streams = {}
    for stream in source.streams:
        if stream.type in ("video", "audio"):
            # opaque: the codec parameters as they are, without an encoder (AV1's template names the libdav1d decoder).
            streams[stream.index] = out.add_stream_from_template(stream, opaque=True)
    started = time.monotonic()
    for packet in source.demux():
        if packet.size == 0 or packet.stream.index not in streams:
            continue
        # Paced on the decoding time (MP4 stores it; the first packets of a Matroska file have none).
        stamp = packet.dts if packet.dts is not None else (packet.pts or 0)
        due = float(stamp * packet.time_base)
        wait = started + due - time.monotonic()
        if wait > 0 and not args.unpaced:
            time.sleep(wait)
        packet.stream = streams[packet.stream.index]
        out.mux(packet)
    out.close()


def mux(args):
    inputs = [av.open(path) for path in args.inputs]
    out = av.open(args.output, "w", format="flv")
    queue = []
    for number, source in enumerate(inputs):
        streams = {s.index: out.add_stream_from_template(s, opaque=True) for s in source.streams if s.type in ("video", "audio")}
        for packet in source.demux():
            if packet.size == 0 or packet.stream.index not in streams:
                continue
            stamp = packet.dts if packet.dts is not None else (packet.pts or 0)
            queue.append((float(stamp * packet.time_base), number, packet, streams[packet.stream.index]))
    # Interleaved by decoding time, as a live encoder sends them.
    for _, _, packet, stream in sorted(queue, key=lambda entry: (entry[0], entry[1])):
        packet.stream = stream
        out.mux(packet)
    out.close()


def frame_digest(frame):
    digest = hashlib.md5()
    if isinstance(frame, av.VideoFrame):
        wide = any(depth in frame.format.name for depth in ("10", "12", "16"))
        for plane in frame.planes:
            data = memoryview(plane)
            row = plane.width * (2 if wide else 1)
            for y in range(plane.height):
                digest.update(data[y * plane.line_size:y * plane.line_size + row])
    else:
        size = frame.samples * frame.format.bytes * (1 if frame.format.is_planar else frame.layout.nb_channels)
        for plane in frame.planes:
            digest.update(memoryview(plane)[:size])
    return digest.hexdigest()


def summarize(container, errors):
    result = {"errors": errors, "tracks": []}
    streams = [s for s in container.streams if s.type in ("video", "audio")]
    tracks = {}
    for stream in streams:
        result.setdefault(stream.type, {"codec": stream.codec_context.name, "frames": 0, "hashes": [], "streams": 0})
        result[stream.type]["streams"] += 1
        tracks[stream.index] = {"kind": stream.type, "codec": stream.codec_context.name, "frames": 0, "hashes": []}
        result["tracks"].append(tracks[stream.index])
    packets = container.demux(streams)
    while True:
        try:
            packet = next(packets)
        except StopIteration:
            break
        except av.FFmpegError as error:
            # FFmpeg's rtmp listen mode reports the publisher's disconnect as an I/O error, not as the end of file.
            result["end"] = f"{error}"
            break
        kind = packet.stream.type
        try:
            frames = packet.decode()
        except av.FFmpegError as error:
            errors.append(f"{kind} decode: {error}")
            continue
        first = next(s for s in streams if s.type == kind)
        for frame in frames:
            tracks[packet.stream.index]["frames"] += 1
            tracks[packet.stream.index]["hashes"].append(frame_digest(frame))
            if packet.stream.index != first.index:
                continue  # only the first stream of each kind is counted and hashed
            result[kind]["frames"] += 1
            result[kind]["hashes"].append(frame_digest(frame))
    for stream in streams:
        try:
            frames = stream.codec_context.decode(None)
        except av.EOFError:
            continue  # drained already by the demuxer's final empty packet
        except av.FFmpegError as error:
            errors.append(f"{stream.type} drain: {error}")
            continue
        tracks[stream.index]["frames"] += len(frames)
        tracks[stream.index]["hashes"] += [frame_digest(frame) for frame in frames]
        if stream.index == next(s for s in streams if s.type == stream.type).index:
            result[stream.type]["frames"] += len(frames)
            result[stream.type]["hashes"] += [frame_digest(frame) for frame in frames]
    return result


def decoded(open_container, path):
    errors = []
    with av.logging.Capture() as logs:
        try:
            container = open_container()
            result = summarize(container, errors)
            container.close()
        except av.FFmpegError as error:
            errors.append(f"{error}")
            result = {"errors": errors}
    result["errors"] = errors + [f"{name}: {message.strip()}" for level, name, message in logs if level <= av.logging.ERROR]
    with open(path, "w") as out:
        json.dump(result, out)
    return 0


def listen(args):
    port = int(args.url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])

    def announce():
        # The port is bound once /proc/net/tcp lists it in state 0A (LISTEN); a probe connection would be taken as
        # the one client.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open("/proc/net/tcp") as table:
                for line in table.readlines()[1:]:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                        print("listening", file=sys.stderr, flush=True)
                        return
            time.sleep(0.02)

    threading.Thread(target=announce, daemon=True).start()
    options = {"listen": "1", "timeout": str(int(args.timeout))}
    return decoded(lambda: av.open(args.url, format="flv", options=options), args.json)


def main():
    av.logging.set_level(av.logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("make")
    p.add_argument("output")
    p.add_argument("--video", choices=["hevc", "av1"], required=True)
    p.add_argument("--audio", choices=["aac", "opus"], required=True)
    p.add_argument("--seconds", type=int, default=4)
    p = commands.add_parser("publish")
    p.add_argument("input")
    p.add_argument("url")
    p.add_argument("--enhanced-codecs")
    p.add_argument("--unpaced", action="store_true")
    p = commands.add_parser("mux")
    p.add_argument("output")
    p.add_argument("inputs", nargs="+")
    p = commands.add_parser("listen")
    p.add_argument("url")
    p.add_argument("--json", required=True)
    p.add_argument("--timeout", type=float, default=30)
    p = commands.add_parser("decode")
    p.add_argument("input")
    p.add_argument("--json", required=True)
    args = parser.parse_args()
    if args.command == "make":
        make(args)
    elif args.command == "publish":
        publish(args)
    elif args.command == "mux":
        mux(args)
    elif args.command == "listen":
        return listen(args)
    else:
        return decoded(lambda: av.open(args.input), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
