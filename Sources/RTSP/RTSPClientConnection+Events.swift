// RFC 2326 §A.1: what the client state machine takes (its configuration and events) and gives (its actions).
import MediaFormats

extension RTSPClientConnection {
    /// How RTP reaches the client.
    public enum TransportMode: Sendable, Equatable {
        /// On the RTSP connection: track n on channels 2n and 2n + 1.
        case interleaved
        /// Over UDP: track n to ports `firstClientPort` + 2n and + 2n + 1.
        case udp(firstClientPort: Int)
    }

    public struct Configuration: Sendable, Equatable {
        public var url: RTSPURL
        public var transport: TransportMode
        public var userAgent: String
        /// The Digest cnonce: random per connection (the caller's generator), fixed in tests.
        public var clientNonce: String

        public init(url: RTSPURL, transport: TransportMode = .interleaved, userAgent: String = "Sluice", clientNonce: String) {
            self.url = url
            self.transport = transport
            self.userAgent = userAgent
            self.clientNonce = clientNonce
        }
    }

    public enum Event: Sendable, Equatable {
        /// The TCP (or TLS) connection is up.
        case connected
        /// Bytes from the server, split anywhere.
        case received([UInt8])
        /// The keep-alive the last `scheduleKeepAlive` asked for is due.
        case keepAliveTimer
        /// The server closed the connection.
        case disconnected
        /// The caller is done: tear the session down.
        case stop
    }

    /// One set-up media section.
    public struct Track: Sendable, Equatable {
        public var media: MediaDescription
        /// The SETUP URL: its `a=control` resolved against the Content-Base.
        public var url: String
        /// The transport the server confirmed.
        public var transport: RTSPTransport?
        /// PLAY's RTP-Info entry for it: where its RTP clock stands at the start of the play range; nil when the server
        /// gave none.
        public var rtpInfo: RTSPRTPInfo?

        public init(media: MediaDescription, url: String, transport: RTSPTransport?, rtpInfo: RTSPRTPInfo? = nil) {
            self.media = media
            self.url = url
            self.transport = transport
            self.rtpInfo = rtpInfo
        }
    }

    /// What PLAY started.
    public struct Presentation: Sendable, Equatable {
        public var description: SessionDescription
        public var tracks: [Track]
        public var session: RTSPSessionHeader
    }

    public enum Action: Sendable, Equatable {
        case send([UInt8])
        /// An RTP packet of track `track` (an index into the presentation's tracks).
        case deliverRTP(track: Int, packet: [UInt8])
        case deliverRTCP(track: Int, packet: [UInt8])
        /// PLAY succeeded: the tracks and their formats.
        case playing(Presentation)
        /// Raise `keepAliveTimer` after this many seconds.
        case scheduleKeepAlive(seconds: Int)
        /// The connection failed; `close` follows.
        case fail(RTSPClientError)
        /// Close the connection.
        case close
    }
}
