// Apple's gapless playback information: the iTunes metadata freeform item (QuickTime File Format, Metadata: 'ilst',
// '----' with 'mean' com.apple.iTunes and 'name' iTunSMPB) whose text gives the encoder's priming, the padding at the
// end and the samples in between, in hex. FFmpeg's MP4 reader takes an AAC track's priming from it even in a fragmented
// file, where it reads no edit list into skipped samples (only samples indexed in the `moov` get that).

/// `udta` → `meta` → `ilst` → `----` iTunSMPB of one audio track: its priming, padding and sample count unknown (0)
/// in a file written as it goes.
public struct ITunSMPBBox: MP4Box, Equatable {
    /// Samples of encoder priming, in the track's timescale.
    public var priming: UInt32

    public var boxType: MP4FourCC { "udta" }

    /// The item for `priming` samples.
    public init(priming: UInt32) { self.priming = priming }

    /// The item's text: a space, then priming, padding and the original sample count in hex (FFmpeg reads the three).
    public var text: String {
        let priming = String(priming, radix: 16, uppercase: true)
        return " 00000000 " + String(repeating: "0", count: max(0, 8 - priming.count)) + priming + " 00000000 0000000000000000"
    }

    /// The one child of `udta`.
    private var meta: MetadataBox {
        // FullBox fields (version 0, flags 0) before each full box's own payload.
        let fullBoxFields: [UInt8] = [0, 0, 0, 0]
        // pre_defined 0, handler_type mdir, reserved (the first word appl, as iTunes writes it), an empty name.
        let handler = MP4OpaqueBox("hdlr", payload: fullBoxFields + [0, 0, 0, 0] + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
        let item = MP4ContainerBox("----", [
            MP4OpaqueBox("mean", payload: fullBoxFields + Array("com.apple.iTunes".utf8)),
            MP4OpaqueBox("name", payload: fullBoxFields + Array("iTunSMPB".utf8)),
            // Type indicator 1 (UTF-8 text), locale 0.
            MP4OpaqueBox("data", payload: [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8)),
        ])
        return MetadataBox(children: [handler, MP4ContainerBox("ilst", [item])])
    }

    public var payloadSize: Int { meta.size }

    public func writePayload(into out: inout [UInt8]) throws {
        try meta.write(into: &out)
    }
}

/// `meta` (ISO/IEC 14496-12 §8.11.1): a full box whose version and flags come before its children.
private struct MetadataBox: MP4Box {
    var children: [any MP4Box]

    var boxType: MP4FourCC { "meta" }
    var payloadSize: Int { 4 + children.reduce(0) { $0 + $1.size } }

    func writePayload(into out: inout [UInt8]) throws {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        for child in children { try child.write(into: &out) }
    }
}
