/// What an RTMP publisher asked Sluice's listener for, judged against the job's URL.
///
/// FFmpeg 5.1's rtmp listener (`libavformat/rtmpproto.c`) accepts any application and stream name; it
/// exposes what the publisher sent only in warnings: `read_connect` logs "App field don't match up:
/// <sent> <-> <expected>" (or "App field not found in connect"), and the FCPublish/publish handler logs
/// "Unexpected stream <sent>, expecting <expected>". Each is logged exactly when the names differ
/// (`strcmp`), so an open that logged none of them was for the job's own application and stream.
public enum PublisherRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The publisher connected to another application (names are not secret).
    case wrongApplication(requested: String, expected: String)
    /// The connect command carried no application name to compare.
    case missingApplication
    /// The publisher's stream name (its key) is not the job's. Neither key is kept.
    case wrongStreamKey
    /// FFmpeg could not read the publish command's stream name.
    case unreadableStreamName

    public var description: String {
        switch self {
        case let .wrongApplication(requested, expected):
            return "the publisher connected to application '\(requested)', but the job listens on '\(expected)'"
        case .missingApplication: return "the publisher's connect command named no application"
        case .wrongStreamKey: return "the publisher's stream key does not match the job's URL"
        case .unreadableStreamName: return "the publisher's stream name could not be read"
        }
    }

    /// The refusal the listener's warnings imply, or nil when the publisher asked for the job's URL.
    static func judge(_ lines: [FFmpegLogCapture.Line]) -> PublisherRefusal? {
        for line in lines {
            let text = line.text
            if let range = text.range(of: "App field don't match up: ") {
                let names = text[range.upperBound...].components(separatedBy: " <-> ")
                return .wrongApplication(requested: names.first ?? "", expected: names.count > 1 ? names[1] : "")
            }
            if text.hasPrefix("App field not found in connect") { return .missingApplication }
            if text.hasPrefix("Unexpected stream ") { return .wrongStreamKey }
            if text.hasPrefix("Unable to parse stream name") { return .unreadableStreamName }
        }
        return nil
    }
}
