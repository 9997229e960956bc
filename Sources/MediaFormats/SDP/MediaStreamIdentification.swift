// RFC 8830 §2 the msid attribute: a=msid:<stream id> [<track id>].

/// The MediaStream a sent track belongs to, so the receiving browser groups audio and video into one stream.
public struct MediaStreamIdentification: Sendable, Equatable {
    /// "-" for a track in no stream.
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(fields.count) else { throw context.invalid("not <stream id> [<track id>]") }
        self.init(streamID: String(fields[0]), trackID: fields.count > 1 ? String(fields[1]) : nil)
    }

    /// What follows "a=msid:".
    var value: String { trackID.map { "\(streamID) \($0)" } ?? streamID }
}
