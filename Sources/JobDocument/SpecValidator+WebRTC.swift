// WHIP inputs and WHEP outputs in a job document: their URLs, their Bearer tokens, and what a WebRTC job cannot be.
extension SpecValidator {
    /// A whip:// or whep:// URL: host:port and a path, nothing else (`WHIPURL` names what is wrong).
    mutating func checkWHIPURL(_ url: String, path: String) -> Bool {
        do throws(WHIPURLError) { _ = try WHIPURL(parsing: url) } catch {
            problem(path, error.description)
            return false
        }
        return true
    }

    /// A token is sent as a Bearer token (RFC 6750): printable ASCII without spaces.
    static func isBearerToken(_ token: String) -> Bool {
        !token.isEmpty && token.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }

    /// `input.token`: for WHIP inputs only.
    mutating func checkInputToken(_ token: String, of input: InputSpec) {
        if !input.isWHIP { problem("input.token", "is for WHIP inputs (whip://); other inputs carry their secret in the URL") }
        if !Self.isBearerToken(token) {
            problem("input.token", "must be 1-\(JobLimits.inputToken.maxLength) printable ASCII characters without spaces (it is sent as a Bearer token)")
        }
    }

    /// `outputs[i].token`: for WHEP outputs only.
    mutating func checkOutputToken(_ token: String, isWHEP: Bool, path: String) -> Bool {
        guard isWHEP else {
            problem("\(path).token", "is for WHEP outputs (whep://); other outputs carry their secret in the URL")
            return false
        }
        guard Self.isBearerToken(token) else {
            problem("\(path).token", "must be 1-\(JobLimits.outputToken.maxLength) printable ASCII characters without spaces (it is sent as a Bearer token)")
            return false
        }
        return true
    }

    /// A WHEP output: its URL, and what its viewers can be sent. Its video may be its own rendition (`encode`: H.264
    /// without B-frames, made by the codec stage for a source whose video viewers cannot take, HEVC or B-frames); its
    /// audio is Opus made for the viewers from the job's, so it takes no encode of its own.
    mutating func checkWHEPOutput(_ url: String, path: String, audio: AudioSpec?) -> Bool {
        guard checkWHIPURL(url, path: "\(path).url") else { return false }
        if let audio, audio.mode == .encode {
            problem("\(path).audio", "a WHEP output's viewers get Opus made from the job's audio; give it audio copy or drop")
            return false
        }
        return true
    }

    /// The job as a whole: WHEP outputs need a live input; a WHIP input is published to the worker.
    mutating func checkWebRTC(input: InputSpec?, outputs: [OutputSpec]) {
        for (index, output) in outputs.enumerated() where output.isWHEP {
            if let input, !input.isNetwork { problem("outputs[\(index)].url", "a WHEP output needs a live input (rtmp://, rtmps://, srt://, rtsp:// or whip://)") }
        }
        if let input, input.isWHIP, !input.listen {
            problem("input.listen", "a whip:// input is published to the worker: give the input as {\"url\": …, \"listen\": true}")
        }
    }
}
