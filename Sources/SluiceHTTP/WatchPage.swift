// `/jobs/ID/watch/N`: a job's WHEP output played in the admin's browser. The one admin page with a script: the
// browser's own WebRTC stack is the player, and the page is its WHEP client (RFC 9725's viewer side).
import Foundation
import JobDocument
import JobStore

/// A WHEP output of a job, and the page that plays it.
struct WatchPage {
    var job: JobRecord
    var output: OutputRecord
    var endpoint: WHIPURL

    /// Output `index` of `outputs` when it is a WHEP output (its stored URL, redacted, keeps host, port and path: a
    /// WHEP URL carries no secret, its token is a field of its own); nil otherwise.
    init?(job: JobRecord, outputs: [OutputRecord], index: Int) {
        guard let output = outputs.first(where: { $0.index == index }),
              let endpoint = try? WHIPURL(parsing: output.url), endpoint.scheme == .whep else { return nil }
        self.job = job
        self.output = output
        self.endpoint = endpoint
    }

    /// Whether `output` gets a "watch" link on the job's page: a WHEP output of a job that is running.
    static func offered(for output: OutputRecord, of job: JobRecord) -> Bool {
        job.state == .running && (try? WHIPURL(parsing: output.url))?.scheme == .whep
    }

    static func path(job: String, index: Int) -> String {
        "/jobs/\(HTML.pathSegment(job))/watch/\(index)"
    }

    /// The endpoint as the page's script is told it: an address that binds every interface (0.0.0.0, ::) is no
    /// address to post to, so the page then posts to the host it was itself loaded from.
    var scriptConfiguration: String {
        let anyHost = ["0.0.0.0", "::", "[::]", ""].contains(endpoint.host)
        let fields: [(String, String)] = [("host", endpoint.host), ("port", String(endpoint.port)), ("path", endpoint.path)]
        let strings = fields.map { "\"\($0.0)\": \(Self.scriptString($0.1))" }.joined(separator: ", ")
        return "{\(strings), \"anyHost\": \(anyHost)}"
    }

    /// `text` as a JavaScript string literal that is safe inside a `<script>` element: quotes and backslashes
    /// escaped, and `<`, `>`, `&` and the line separators as \u escapes (no `</script>` can end the element early).
    static func scriptString(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "<", ">", "&", "\u{2028}", "\u{2029}": literal += String(format: "\\u%04x", scalar.value)
            default:
                if scalar.value < 0x20 { literal += String(format: "\\u%04x", scalar.value) } else { literal.unicodeScalars.append(scalar) }
            }
        }
        return literal + "\""
    }

    func html() -> String {
        let target = "http://\(endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host):\(endpoint.port)\(endpoint.path)"
        var body = "<h1>Job \(PageLayout.jobLink(job.id)) · output \(output.index), live \(PageLayout.state(job.state.rawValue))</h1>\n"
        body += """
            <p class="muted">This page is a WHEP viewer of <code>\(HTML.escape(target))</code>: your browser offers to receive \
            H.264 and Opus, and plays what the worker sends. A viewer token, if the output has one, is read from the field \
            below or from this page's <code>#token=</code> fragment (a fragment is never sent to a server). Leaving the \
            page ends the session.</p>
            <form id="watch"><label>Viewer token <input id="token" type="password" autocomplete="off"></label> \
            <button type="submit">Play again</button></form>
            <p><video id="video" autoplay muted playsinline controls style="width:100%;max-width:960px;background:#000"></video></p>
            <dl><dt>Session</dt><dd><output id="status" data-state="starting">starting</output></dd>
            <dt>Video</dt><dd><output id="frames" data-frames="0">0</output> frames decoded \
            (<output id="dropped" data-dropped="0">0</output> dropped), <output id="size" data-size=""></output></dd>
            <dt>Audio</dt><dd><output id="audio" data-packets="0">0</output> packets received</dd></dl>
            <script>
            "use strict";
            const config = \(scriptConfiguration);
            const host = config.anyHost ? location.hostname : config.host;
            const endpoint = "http://" + (host.includes(":") ? "[" + host + "]" : host) + ":" + config.port + config.path;
            const $ = (id) => document.getElementById(id);
            let pc = null, session = null, timer = null;
            function say(state, text) { $("status").dataset.state = state; $("status").textContent = text; }
            function authorization() {
              const token = $("token").value || new URLSearchParams(location.hash.slice(1)).get("token");
              return token ? {"Authorization": "Bearer " + token} : {};
            }
            function stop() {
              if (timer) clearInterval(timer);
              timer = null;
              if (pc) pc.close();
              pc = null;
              if (session) {
                fetch(session, {method: "DELETE", headers: authorization(), keepalive: true})
                  .catch((error) => console.warn("DELETE " + session + ": " + error.message));
                session = null;
              }
            }
            function gathered(connection) {
              if (connection.iceGatheringState === "complete") return Promise.resolve();
              return new Promise((resolve) => {
                connection.addEventListener("icegatheringstatechange", () => { if (connection.iceGatheringState === "complete") resolve(); });
                setTimeout(resolve, 2000);
              });
            }
            async function statistics() {
              if (!pc) return;
              (await pc.getStats()).forEach((entry) => {
                if (entry.type !== "inbound-rtp") return;
                if (entry.kind === "video") {
                  $("frames").textContent = $("frames").dataset.frames = entry.framesDecoded || 0;
                  $("dropped").textContent = $("dropped").dataset.dropped = entry.framesDropped || 0;
                  if (entry.frameWidth) $("size").textContent = $("size").dataset.size = entry.frameWidth + "x" + entry.frameHeight;
                } else if (entry.kind === "audio") {
                  $("audio").textContent = $("audio").dataset.packets = entry.packetsReceived || 0;
                }
              });
            }
            async function play() {
              stop();
              const connection = pc = new RTCPeerConnection();
              connection.addTransceiver("video", {direction: "recvonly"});
              connection.addTransceiver("audio", {direction: "recvonly"});
              const stream = new MediaStream();
              $("video").srcObject = stream;
              connection.addEventListener("track", (event) => stream.addTrack(event.track));
              connection.addEventListener("connectionstatechange", () => {
                if (pc === connection) say(connection.connectionState, connection.connectionState);
              });
              await connection.setLocalDescription(await connection.createOffer());
              await gathered(connection);
              say("offering", "offering to " + endpoint);
              let response;
              try {
                response = await fetch(endpoint, {method: "POST", body: connection.localDescription.sdp,
                                                  headers: Object.assign({"Content-Type": "application/sdp"}, authorization())});
              } catch (error) {
                say("unreachable", "the worker could not be reached at " + endpoint + ": " + error.message);
                return;
              }
              const answer = await response.text();
              if (response.status !== 201) {
                say("refused", "the worker answered " + response.status + ": " + answer.trim());
                return;
              }
              const location = response.headers.get("Location");
              session = location ? new URL(location, endpoint).href : null;
              await connection.setRemoteDescription({type: "answer", sdp: answer});
              timer = setInterval(statistics, 500);
            }
            $("watch").addEventListener("submit", (event) => { event.preventDefault(); play(); });
            window.addEventListener("pagehide", stop);
            play().catch((error) => say("failed", error.message));
            </script>

            """
        return PageLayout.page(title: "Sluice job \(job.id) · watch output \(output.index)", refreshSeconds: nil, body: body)
    }
}
