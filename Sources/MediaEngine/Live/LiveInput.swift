import CFFmpeg
import MediaFormats
import Foundation

/// A live network input: an `rtmp://`/`rtmps://` pull, or Sluice listening for one publisher.
///
/// Connecting is retried with backoff until `timeout` has passed; after a drop (an error, or the end of
/// the stream) the input is reopened the same way until `timeout` passes without data. Packets of every
/// connection come out under the first connection's stream indices and time bases, with timestamps
/// spliced to stay continuous and monotonic (`TimelineSplicer`), and with new extradata announced when a
/// connection's codec configuration differs. As a listener, each publisher is checked against the job's
/// URL (`PublisherRefusal`) and a mismatch is disconnected; listening goes on until the timeout.
///
/// Used by the input thread only; `@unchecked Sendable` so it can be created on one thread and read on another.
public final class LiveInput: PacketSource, @unchecked Sendable {
    public let streams: [StreamInfo]
    /// Connections opened after the first.
    public private(set) var reconnects = 0
    /// Publishers disconnected because they asked for another application or stream key.
    public private(set) var refusals: [PublisherRefusal] = []

    private let url: String
    private let options: [String: String]
    private let interrupter: Interrupter
    private let timeout: Double
    private let policy: ReconnectPolicy
    private let name: String
    private let isListener: Bool

    private var current: MediaInput?
    private var bytesBefore: Int64 = 0
    private var lastData: UInt64
    private var splicer = TimelineSplicer()
    /// The current connection's stream index → the first connection's.
    private var mapping: [Int: Int] = [:]
    /// The first connection's stream index → the current connection's description of it.
    private var currentStreams: [Int: StreamInfo] = [:]
    /// The codec configuration the outputs last saw, per (first connection's) stream index.
    private var extradata: [Int: [UInt8]] = [:]
    /// Extradata to announce on the next packet of a stream (a new connection changed it).
    private var pendingExtradata: [Int: [UInt8]] = [:]

    public var bytesRead: Int64 { bytesBefore + (current?.bytesRead ?? 0) }

    /// Opens the input, retrying until `timeout` seconds have passed.
    /// - Parameters:
    ///   - url: the `rtmp://`/`rtmps://` URL (as a listener: the host, port, application and key to accept).
    ///   - options: demuxer/protocol options; `listen=1` makes this a listener.
    ///   - interrupter: the job's; cancels every blocking call.
    ///   - timeout: seconds to connect, and seconds without data before a lost input ends the job.
    ///   - policy: backoff between attempts (its `attempts` do not apply: the timeout bounds the tries).
    ///   - name: the redacted URL, for messages.
    /// - Throws: `FFmpegError` from the last attempt, or `PipelineError.publisherRefused`.
    public init(url: String, options: [String: String], interrupter: Interrupter, timeout: Double,
                policy: ReconnectPolicy, name: String) throws {
        self.url = url
        self.options = options
        self.interrupter = interrupter
        self.timeout = timeout
        self.policy = policy
        self.name = name
        self.isListener = options["listen"] == "1"
        let started = Interrupter.now()
        lastData = started
        var refusals: [PublisherRefusal] = []
        let input = try LiveInput.connect(url: url, options: options, interrupter: interrupter, deadline: LiveInput.later(started, by: timeout),
                                          policy: policy, isListener: isListener, name: name, refusals: &refusals)
        self.refusals = refusals
        streams = input.streams
        current = input
        for stream in input.streams {
            mapping[stream.index] = stream.index
            currentStreams[stream.index] = stream
            extradata[stream.index] = stream.extradata
        }
    }

    public func readPacket() throws -> DemuxedPacket? {
        var endedCleanly = false
        while true {
            if let input = current {
                do {
                    if let packet = try input.readPacket() {
                        lastData = Interrupter.now()
                        guard let mapped = remap(packet) else { continue }
                        return mapped
                    }
                    endedCleanly = true
                } catch let error as FFmpegError {
                    if interrupter.isCancelled { throw error }
                    endedCleanly = false
                }
                bytesBefore += input.bytesRead
                current = nil
            }
            // Only what is left of `timeout` since the last packet is spent on getting the stream back.
            let deadline = LiveInput.later(lastData, by: timeout)
            do {
                let input = try LiveInput.connect(url: url, options: options, interrupter: interrupter, deadline: deadline,
                                                  policy: policy, isListener: isListener, name: name, refusals: &refusals)
                adopt(input)
            } catch let error as PipelineError {
                throw error
            } catch {
                if interrupter.isCancelled { throw FFmpegError(function: "avformat_open_input", code: sluice_averror_exit()) }
                // A stream that ended and did not come back within the timeout has ended; a lost one failed.
                if endedCleanly { return nil }
                throw PipelineError.inputTimedOut(name: name, seconds: timeout)
            }
        }
    }

    // MARK: Connections

    /// Opens until `deadline` (monotonic ns), with backoff between failures. As a listener, a publisher
    /// that asked for another application or key is disconnected and the next one awaited at once.
    private static func connect(url: String, options: [String: String], interrupter: Interrupter, deadline: UInt64,
                                policy: ReconnectPolicy, isListener: Bool, name: String,
                                refusals: inout [PublisherRefusal]) throws -> MediaInput {
        var failures = 0
        var lastError: (any Error)?
        while true {
            let now = Interrupter.now()
            guard !interrupter.isCancelled, now < deadline else {
                if let refusal = refusals.last { throw PipelineError.publisherRefused(name: name, refusal) }
                throw lastError ?? FFmpegError(function: "avformat_open_input", code: sluice_averror_exit())
            }
            let remaining = Double(deadline - now) / 1e9
            if isListener {
                let (opened, lines) = FFmpegLogCapture.capture {
                    try MediaInput(url: url, options: options, interrupter: interrupter, timeout: remaining)
                }
                do {
                    let input = try opened.get()
                    if let refusal = PublisherRefusal.judge(lines) {
                        refusals.append(refusal)
                        // Dropping the input closes the publisher's connection; listen again straight away.
                        continue
                    }
                    return input
                } catch {
                    lastError = error
                }
            } else {
                do {
                    return try MediaInput(url: url, options: options, interrupter: interrupter, timeout: remaining)
                } catch {
                    lastError = error
                }
            }
            failures += 1
            pause(seconds: min(policy.delay(beforeAttempt: failures), Double(deadline &- min(Interrupter.now(), deadline)) / 1e9),
                  interrupter: interrupter)
        }
    }

    /// Sleeps in short steps so a cancel is seen promptly.
    private static func pause(seconds: Double, interrupter: Interrupter) {
        let until = later(Interrupter.now(), by: seconds)
        while !interrupter.isCancelled {
            let now = Interrupter.now()
            guard now < until else { return }
            usleep(UInt32(min((until - now) / 1000, 50_000)))
        }
    }

    /// `seconds` after the monotonic instant `start`, saturating at `UInt64.max` (a timeout of 1e300 s waits forever).
    static func later(_ start: UInt64, by seconds: Double) -> UInt64 {
        let nanoseconds = max(seconds, 0) * 1_000_000_000
        guard nanoseconds < Double(UInt64.max) else { return .max }
        let (sum, overflow) = start.addingReportingOverflow(UInt64(nanoseconds))
        return overflow ? .max : sum
    }

    /// Codec parameters of the pipeline's stream `index` on the connection open now.
    func currentCodecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>? {
        current?.codecParameters(ofStream: currentStreams[index]?.index ?? index)
    }

    /// Maps a new connection's streams onto the first one's by kind; changed configurations are announced.
    private func adopt(_ input: MediaInput) {
        current = input
        reconnects += 1
        mapping = [:]
        currentStreams = [:]
        for original in streams where original.kind != .other {
            guard let match = input.streams.first(where: { $0.kind == original.kind && !$0.isAttachedPicture }),
                  mapping[match.index] == nil else { continue }
            mapping[match.index] = original.index
            currentStreams[original.index] = match
            if !match.extradata.isEmpty && match.extradata != extradata[original.index] {
                pendingExtradata[original.index] = match.extradata
            }
        }
        splicer.beginSegment()
    }

    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    /// The packet under the first connection's stream index and time base, spliced onto the job's timeline.
    private func remap(_ packet: DemuxedPacket) -> DemuxedPacket? {
        guard let original = mapping[packet.streamIndex], let source = currentStreams[original] else { return nil }
        let target = streams[original]
        var packet = packet
        packet.streamIndex = original
        if let announced = packet.newExtradata {
            extradata[original] = announced
            pendingExtradata[original] = nil
        } else if let pending = pendingExtradata.removeValue(forKey: original) {
            packet.newExtradata = pending
            extradata[original] = pending
        }
        let sourceBase = AVRational(num: source.timeBaseNumerator, den: source.timeBaseDenominator)
        let targetBase = AVRational(num: target.timeBaseNumerator, den: target.timeBaseDenominator)
        let toMicroseconds = { (value: Int64) in av_rescale_q(value, sourceBase, LiveInput.microseconds) }
        let toTarget = { (value: Int64) in av_rescale_q(value, LiveInput.microseconds, targetBase) }
        let dts = packet.dts.map(toMicroseconds)
        let pts = packet.pts.map(toMicroseconds)
        let offset = splicer.offset(stream: original, dts: dts ?? pts, pts: pts, duration: LiveInput.duration(of: packet, source, toMicroseconds))
        packet.dts = dts.map { toTarget($0.addingSaturating(offset)) }
        packet.pts = pts.map { toTarget($0.addingSaturating(offset)) }
        packet.duration = toTarget(toMicroseconds(packet.duration))
        return packet
    }

    /// A packet's duration in microseconds; FLV leaves it 0, so one frame (or 1024 AAC samples) is assumed.
    private static func duration(of packet: DemuxedPacket, _ stream: StreamInfo, _ toMicroseconds: (Int64) -> Int64) -> Int64 {
        if packet.duration > 0 { return toMicroseconds(packet.duration) }
        switch stream.kind {
        case .video: return toMicroseconds(DecodeTimeInference.frameDuration(0, stream))
        case .audio where stream.sampleRate > 0: return Int64(1024 * 1_000_000 / stream.sampleRate)
        default: return 1
        }
    }
}
