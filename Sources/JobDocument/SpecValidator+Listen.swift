// An RTMP listen job's URL: the one application and key a publisher must name.
extension SpecValidator {
    /// A listener checks the publisher's application and stream key against its URL, so both must be
    /// there: `rtmp(s)://HOST:PORT/APP/KEY` (FFmpeg compares the key with the URL's last path segment).
    mutating func checkListenURL(_ url: String) {
        guard let schemeEnd = url.range(of: "://") else { return }
        let rest = url[schemeEnd.upperBound...]
        let path = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if url.contains("?") || segments.count != 2 || segments.contains(where: \.isEmpty) {
            problem("input.url", "a listening input needs rtmp(s)://HOST:PORT/APP/STREAM_KEY (one application, one key, no query), got \(quoted(url))")
        }
    }
}
