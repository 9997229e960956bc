#!/usr/bin/python3
"""A browser as a WHIP publisher or a WHEP viewer: headless Chromium, its own WebRTC stack, driven by a page this script
serves on loopback. The page does what a web page does (getUserMedia, RTCPeerConnection, fetch, a <video> element) and
posts what it saw back here; this script prints it as one JSON line and exits.

    chromium-peer.py play URL --token T --seconds S
        a recvonly offer (what the browser offers: every codec it has), the answer, a <video> playing the stream for S
        seconds, then DELETE. Prints {"status", "connected", "delete_status", "frames_decoded", "frames_dropped",
        "video_width", "video_height", "audio_packets", "audio_energy", "first_frame_after", "codecs", "error",
        "freeze_count", "freezes_seconds" (Chromium's own count), "timed_frames", "longest_arrival_gap" and
        "longest_added_gap" (the longest wait between two shown frames beyond their media times' distance, seconds)}.
    chromium-peer.py publish URL --token T --seconds S [--codec h264]
        Chromium's fake camera and microphone (a test pattern and a beep), sent with CODEC and Opus for S seconds, then
        DELETE. Prints {"status", "connected", "delete_status", "frames_encoded", "packets_sent", "codecs", "error"}.

Exit 0 when the page reported (whatever it reported: the caller judges), 2 when Chromium never reported within
--seconds + 60 s. The page's origin is this script's server, so the WHIP/WHEP endpoint is a cross-origin fetch: its
CORS answers (OPTIONS, Access-Control-*) are part of what is tried."""
import argparse
import ctypes
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading


def die_with_parent():
    """In the browser's process, before exec: SIGKILL when this script dies, however it dies (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def stop_browser(browser):
    """The browser and every process it started (its own session): SIGTERM, then SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(browser.pid, sig)
        except ProcessLookupError:
            return
        try:
            browser.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue

PAGE = r"""<!doctype html>
<html><body><video id="v" autoplay playsinline></video><script>
const config = %CONFIG%;
const result = {status: null, connected: false, delete_status: null, error: null};
function report() { return fetch("/result", {method: "POST", body: JSON.stringify(result)}); }
function sleep(ms) { return new Promise(r => setTimeout(r, ms)); }
function headers() {
  const h = {"Content-Type": "application/sdp"};
  if (config.token) h["Authorization"] = "Bearer " + config.token;
  return h;
}
async function waitConnected(pc) {
  for (let i = 0; i < 200; i++) {
    if (pc.connectionState === "connected") return true;
    if (pc.connectionState === "failed" || pc.connectionState === "closed") return false;
    await sleep(100);
  }
  return false;
}
async function gathered(pc) {
  if (pc.iceGatheringState === "complete") return;
  await new Promise(resolve => {
    pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") resolve(); });
    setTimeout(resolve, 3000);
  });
}
async function exchange(pc) {
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const response = await fetch(config.url, {method: "POST", headers: headers(), body: pc.localDescription.sdp});
  result.status = response.status;
  const body = await response.text();
  if (response.status !== 201) { result.body = body; return null; }
  await pc.setRemoteDescription({type: "answer", sdp: body});
  return new URL(response.headers.get("Location"), config.url).href;
}
async function remove(location) {
  if (!location) return;
  const response = await fetch(location, {method: "DELETE", headers: config.token ? {"Authorization": "Bearer " + config.token} : {}});
  result.delete_status = response.status;
}
async function stats(pc) {
  const out = {};
  (await pc.getStats()).forEach(s => { out[s.type + ":" + (s.kind || s.mediaType || "") + ":" + s.id] = s; });
  return Object.values(out);
}
async function play() {
  const pc = new RTCPeerConnection();
  pc.addTransceiver("video", {direction: "recvonly"});
  pc.addTransceiver("audio", {direction: "recvonly"});
  const video = document.getElementById("v");
  const played = new MediaStream();
  video.srcObject = played;
  // Both tracks in the one element, as a player page has them: the audio is played out, so its energy counts.
  pc.ontrack = e => { played.addTrack(e.track); };
  const location = await exchange(pc);
  if (!location) return;
  const began = performance.now();
  result.connected = await waitConnected(pc);
  if (!result.connected) { await remove(location); return; }
  const connectedAt = performance.now();
  // Each shown frame's arrival (receiveTime, ms) and media time (rtpTimestamp, 90 kHz): a stop in the picture that
  // the media times also have was made before the frame reached the server (the camera); the rest was added on the way.
  const timed = [];
  const onFrame = (now, m) => {
    if (result.first_frame_after === undefined) result.first_frame_after = (performance.now() - connectedAt) / 1000;
    if (m.receiveTime !== undefined && m.rtpTimestamp !== undefined) timed.push([m.receiveTime, m.rtpTimestamp]);
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
  await sleep(config.seconds * 1000);
  result.timed_frames = timed.length;
  result.longest_arrival_gap = 0;
  result.longest_added_gap = 0;
  for (let i = 1; i < timed.length; i++) {
    const arrival = (timed[i][0] - timed[i - 1][0]) / 1000;
    const media = ((timed[i][1] - timed[i - 1][1]) >>> 0) / 90000;
    result.longest_arrival_gap = Math.max(result.longest_arrival_gap, arrival);
    result.longest_added_gap = Math.max(result.longest_added_gap, arrival - media);
  }
  const all = await stats(pc);
  const v = all.find(s => s.type === "inbound-rtp" && s.kind === "video") || {};
  const a = all.find(s => s.type === "inbound-rtp" && s.kind === "audio") || {};
  result.frames_decoded = v.framesDecoded || 0;
  result.frames_dropped = v.framesDropped || 0;
  result.freeze_count = v.freezeCount || 0;
  result.freezes_seconds = v.totalFreezesDuration || 0;
  result.video_width = video.videoWidth;
  result.video_height = video.videoHeight;
  result.audio_packets = a.packetsReceived || 0;
  result.audio_energy = a.totalAudioEnergy || 0;
  result.codecs = all.filter(s => s.type === "codec").map(s => s.mimeType);
  await remove(location);
  pc.close();
}
async function publish() {
  const stream = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 360, frameRate: 30}, audio: true});
  const pc = new RTCPeerConnection();
  for (const track of stream.getTracks()) {
    const transceiver = pc.addTransceiver(track, {direction: "sendonly", streams: [stream]});
    if (track.kind === "video") {
      const codecs = RTCRtpSender.getCapabilities("video").codecs.filter(c => c.mimeType.toLowerCase() === "video/" + config.codec);
      if (!codecs.length) { result.error = "this Chromium cannot send " + config.codec; return; }
      transceiver.setCodecPreferences(codecs);
    }
  }
  const location = await exchange(pc);
  if (!location) { stream.getTracks().forEach(t => t.stop()); return; }
  result.connected = await waitConnected(pc);
  if (result.connected) await sleep(config.seconds * 1000);
  const all = await stats(pc);
  const v = all.find(s => s.type === "outbound-rtp" && s.kind === "video") || {};
  result.frames_encoded = v.framesEncoded || 0;
  result.packets_sent = all.filter(s => s.type === "outbound-rtp").reduce((n, s) => n + (s.packetsSent || 0), 0);
  result.codecs = all.filter(s => s.type === "codec").map(s => s.mimeType);
  await remove(location);
  stream.getTracks().forEach(t => t.stop());
  pc.close();
}
(config.mode === "play" ? play() : publish())
  .catch(e => { result.error = String(e); })
  .finally(report);
</script></body></html>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["play", "publish"])
    parser.add_argument("url")
    parser.add_argument("--token")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--codec", default="h264")
    args = parser.parse_args()
    # A test ends this script with SIGTERM: it must still take its browser with it (the finally below), or a Chromium
    # publishing to nowhere loads every test after it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium-peer: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 3
    config = {"mode": args.mode, "url": args.url, "token": args.token, "seconds": args.seconds, "codec": args.codec}
    page = PAGE.replace("%CONFIG%", json.dumps(config)).encode()
    reported = {}
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                reported.update(json.loads(body))
            except ValueError as error:
                reported["error"] = f"the page posted no JSON: {error}"
            self.send_response(204)
            self.end_headers()
            done.set()

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="chromium-peer-")
    command = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
               f"--user-data-dir={profile}", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
               "--autoplay-policy=no-user-gesture-required", "--disable-features=WebRtcHideLocalIpsWithMdns",
               f"http://127.0.0.1:{server.server_address[1]}/"]
    log = open(os.path.join(profile, "chromium.log"), "w+")
    browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, preexec_fn=die_with_parent)
    try:
        if not done.wait(args.seconds + 60):
            stop_browser(browser)
            log.seek(0)
            print(json.dumps({"error": "the page never reported", "chromium": log.read()[-2000:]}))
            return 2
        print(json.dumps(reported))
        return 0
    finally:
        stop_browser(browser)
        log.close()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
