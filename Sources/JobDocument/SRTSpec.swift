// docs/JOBS.md "SRT": what a job's srt:// input or output must be, beside the address grammar (`SRTURL`, `SRTStreamID`).

extension SpecValidator {
    /// The URL schemes a job may name: files, and the live protocols the relay engine speaks.
    static let inputSchemes: Set<String> = ["file", "rtmp", "rtmps", "srt", "rtsp", "rtsps", "whip"]
    /// RTSP is pulled from cameras, never published to.
    static let outputSchemes: Set<String> = ["file", "rtmp", "rtmps", "srt", "whep"]

    /// An SRT input pulls as a caller, or (`listen`) waits on the worker's shared SRT port for the publisher whose
    /// streamid it names; `mode=listener` on a port of the job's own is not how a job listens.
    mutating func checkSRTInput(_ input: InputSpec) {
        guard let url = try? SRTURL(parsing: input.url) else { return }
        if url.mode == .listener {
            problem("input.url", "an SRT input waits for its publisher with \"listen\": true (the worker's shared SRT port), not mode=listener")
        }
        guard input.listen else { return }
        guard let streamID = url.streamID else {
            problem("input.url", "a listening SRT input needs the streamid its publisher sends: srt://HOST:PORT?streamid=publish:live/KEY")
            return
        }
        do throws(SRTAddressError) {
            guard try SRTStreamID(parsing: streamID).mode == .publish else {
                problem("input.url", "a listening SRT input's streamid names a publish (publish:live/KEY or #!::r=live/KEY,m=publish), not a read")
                return
            }
        } catch {
            problem("input.url", error.description)
        }
    }

    /// An SRT URL a job can use: one that parses, with a port a peer can reach (0 picks none).
    static func checkSRTAddress(_ text: String) throws(SRTAddressError) {
        let url = try SRTURL(parsing: text)
        guard url.port != 0 else { throw .invalidURL(reason: "a job's SRT URL needs a port from 1 to 65535") }
        guard !url.host.isEmpty else { throw .invalidURL(reason: "a job's SRT URL needs a host (0.0.0.0 listens on every address)") }
    }
}
