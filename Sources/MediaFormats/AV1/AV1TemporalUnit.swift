// AV1 Bitstream & Decoding Process Specification §7.5 (ordering of OBUs: a temporal unit starts a coded video sequence
// with a sequence header and a key frame) and §5.9.2 uncompressed_header() up to show_frame: what a relay needs to
// know about one temporal unit (an FLV or MP4 sample) to start a stream at it.

/// What one temporal unit carries: a sequence header, and whether its first frame is a shown key frame.
public struct AV1TemporalUnit: Sendable, Equatable {
    /// A sequence header OBU is present (its fields, if it parsed).
    public var sequenceHeader: AV1SequenceHeader?
    /// The first frame (or frame header) OBU has frame_type KEY_FRAME and show_frame 1.
    public var startsWithShownKeyFrame: Bool

    /// frame_type KEY_FRAME (§6.8.2).
    static let keyFrameType: UInt32 = 0

    /// A keyframe a decoder can start at: a sequence header and a shown key frame.
    public var isKeyframe: Bool { sequenceHeader != nil && startsWithShownKeyFrame }

    /// Reads the OBUs of a temporal unit. `reducedStillPictureHeader` comes from the stream's sequence header when
    /// this unit has none (false by default: such streams are still images with one in every unit).
    public init(parsing bytes: ArraySlice<UInt8>, reducedStillPictureHeader: Bool = false) throws {
        sequenceHeader = nil
        startsWithShownKeyFrame = false
        var reduced = reducedStillPictureHeader
        for obu in try AV1OBU.all(in: bytes) {
            switch obu.header.type {
            case .sequenceHeader:
                let header = try AV1SequenceHeader(parsing: obu.payload)
                sequenceHeader = header
                reduced = header.reducedStillPictureHeader
            case .frame, .frameHeader:
                startsWithShownKeyFrame = try Self.isShownKeyFrame(obu.payload, reducedStillPictureHeader: reduced)
                return
            default:
                continue
            }
        }
    }

    /// Reads the OBUs of a temporal unit.
    public init(parsing bytes: [UInt8], reducedStillPictureHeader: Bool = false) throws {
        try self.init(parsing: bytes[...], reducedStillPictureHeader: reducedStillPictureHeader)
    }

    /// show_existing_frame, frame_type and show_frame at the start of uncompressed_header().
    static func isShownKeyFrame(_ payload: ArraySlice<UInt8>, reducedStillPictureHeader: Bool) throws -> Bool {
        // A reduced still picture header has no such fields: every frame is a shown key frame.
        guard !reducedStillPictureHeader else { return true }
        var r = BitReader(payload)
        guard try !r.readFlag() else { return false }  // show_existing_frame: a frame decoded earlier
        let frameType = try r.readBits(2)
        let showFrame = try r.readFlag()
        return frameType == keyFrameType && showFrame
    }
}
