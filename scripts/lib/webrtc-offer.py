#!/usr/bin/env python3
"""Prints a real WebRTC publisher's SDP offer (a sendonly H.264 video and Opus audio), for the SDP fixtures in
Tests/MediaFormatsTests/SDP/WebRTCOfferFixtures.swift and the seeds in Fuzz/corpus/SDPOffer/.

    python3 scripts/lib/webrtc-offer.py aiortc        # needs `pip install aiortc`
    /usr/bin/python3 scripts/lib/webrtc-offer.py webrtcbin   # needs python3-gi, gstreamer1.0-nice, webrtcbin

Paste the output into the fixtures file as a Swift multi-line string; line ends are CRLF on the wire and either
is read. Session ids, ufrags, passwords, fingerprints, SSRCs and host candidates change on every run."""
import sys


def aiortc_offer():
    import asyncio

    from aiortc import RTCPeerConnection
    from aiortc.rtcrtpsender import RTCRtpSender

    async def run():
        pc = RTCPeerConnection()
        video = pc.addTransceiver("video", direction="sendonly")
        video.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs
                                   if c.mimeType.lower() in ("video/h264", "video/rtx")])
        pc.addTransceiver("audio", direction="sendonly")
        await pc.setLocalDescription(await pc.createOffer())
        print(pc.localDescription.sdp, end="")
        await pc.close()

    asyncio.run(run())


def webrtcbin_offer():
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstWebRTC", "1.0")
    gi.require_version("GstSdp", "1.0")
    from gi.repository import GLib, Gst, GstWebRTC  # noqa: F401 (GstWebRTC registers the transceiver types)

    Gst.init(None)
    pipeline = Gst.parse_launch(
        "webrtcbin name=bin bundle-policy=max-bundle "
        # The offer needs only the RTP caps on each pad, not media: no encoder has to be installed.
        "appsrc is-live=true format=time caps=\"application/x-rtp,media=video,encoding-name=H264,payload=102,"
        "clock-rate=90000,packetization-mode=(string)1,profile-level-id=(string)42e01f\" ! bin. "
        "appsrc is-live=true format=time caps=\"application/x-rtp,media=audio,encoding-name=OPUS,payload=111,"
        "clock-rate=48000,encoding-params=(string)2\" ! bin.")
    webrtc = pipeline.get_by_name("bin")
    loop = GLib.MainLoop()

    def on_offer(promise, _):
        promise.wait()
        # The reply is owned by the promise: keep both referenced while the offer is read, or it is freed under us.
        reply = promise.get_reply()
        offer = reply.get_value("offer")
        print(offer.sdp.as_text().replace("\r\n", "\n"), end="")
        loop.quit()

    def on_negotiation_needed(element):
        for index in range(2):
            transceiver = element.emit("get-transceiver", index)
            if transceiver is not None:
                transceiver.set_property("direction", GstWebRTC.WebRTCRTPTransceiverDirection.SENDONLY)
        element.emit("create-offer", None, Gst.Promise.new_with_change_func(on_offer, None))

    webrtc.connect("on-negotiation-needed", on_negotiation_needed)
    pipeline.set_state(Gst.State.PLAYING)
    GLib.timeout_add_seconds(10, loop.quit)
    loop.run()
    pipeline.set_state(Gst.State.NULL)


if __name__ == "__main__":
    {"aiortc": aiortc_offer, "webrtcbin": webrtcbin_offer}[sys.argv[1] if len(sys.argv) > 1 else "aiortc"]()
