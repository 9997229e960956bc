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

    /// A WHEP output: its URL, and no rendition of its own (the relay sends the job's stream as it is to each viewer).
    mutating func checkWHEPOutput(_ url: String, path: String, ownStreams: Bool) -> Bool {
        guard checkWHIPURL(url, path: "\(path).url") else { return false }
        if ownStreams {
            problem(path, "a WHEP output takes the job's stream as it is; give it no video or audio object of its own")
            return false
        }
        return true
    }

    /// The job as a whole: WHEP outputs need a live input and a copy job; a WHIP input is published to the worker.
    mutating func checkWebRTC(input: InputSpec?, outputs: [OutputSpec], encodes: Bool) {
        for (index, output) in outputs.enumerated() where output.isWHEP {
            if let input, !input.isNetwork { problem("outputs[\(index)].url", "a WHEP output needs a live input (rtmp://, rtmps://, srt://, rtsp:// or whip://)") }
            if encodes { problem("outputs[\(index)].url", "a WHEP output takes the job's stream as it is: video and audio copy or drop") }
        }
        if let input, input.isWHIP, !input.listen {
            problem("input.listen", "a whip:// input is published to the worker: give the input as {\"url\": …, \"listen\": true}")
        }
    }
}
