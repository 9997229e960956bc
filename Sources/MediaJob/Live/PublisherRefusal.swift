/// Why the shared ingest listener refused a publisher that asked for a listen job's port: it named another
/// application or stream key than the job's URL.
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
}
