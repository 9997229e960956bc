import MediaFormats
import MediaSinks

/// Timing for raw Annex B input, which carries no timestamps: presentation order comes from each
/// access unit's picture order count (MediaFormats), spaced at the job's frame rate.
struct RawVideoTiming {
    /// FFmpeg's own default for raw H.264 without timing information.
    static let defaultFrameRate = 25.0
    let frameRate: Double
    private var timestamper: AnnexBAccessUnitTimestamper

    /// `frameRate` is the job's `input.fps` (validated) or a plausible VUI rate; anything else falls back to the default.
    init(frameRate: Double) {
        self.frameRate = frameRate.isFinite && frameRate > 0 ? frameRate : RawVideoTiming.defaultFrameRate
        self.timestamper = AnnexBAccessUnitTimestamper(frameDuration: 1)
    }

    /// Takes one access unit in decode order; returns those whose times are now known.
    mutating func push(_ accessUnit: [UInt8]) throws -> [MediaPacket] {
        try timestamper.push(accessUnit).map(packet)
    }

    mutating func flush() throws -> [MediaPacket] {
        timestamper.flush().map(packet)
    }

    /// Frame counts become microseconds without accumulating rounding error (saturating: never a trap).
    func microseconds(_ frames: Int64) -> Int64 {
        Int64.saturating(Double(frames) * 1_000_000 / frameRate) ?? 0
    }

    private func packet(_ unit: AnnexBAccessUnitTimestamper.Timed) -> MediaPacket {
        MediaPacket(kind: .video, data: unit.payload, pts: microseconds(unit.pts), dts: microseconds(unit.dts),
                    isKeyframe: RawVideoTiming.containsIDR(unit.payload))
    }

    static func containsIDR(_ accessUnit: [UInt8]) -> Bool {
        AnnexB.nalUnits(in: accessUnit).contains { nal in nal.first.map { NALUnitHeader($0).isIDR } ?? false }
    }

    /// The SPS VUI frame rate from extradata or the first access unit, when the stream states one.
    static func frameRate(fromParameterSets extradata: [UInt8], firstAccessUnit: [UInt8]) -> Double? {
        for bytes in [extradata, firstAccessUnit] {
            if let sps = try? MediaProbe.firstSPS(inAnnexB: bytes), let rate = sps.frameRate, LiveStreamDescription.plausibleFrameRates.contains(rate) {
                return rate
            }
        }
        return nil
    }
}
