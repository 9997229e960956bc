import MediaFormats

/// Raw H.264 with start codes (`.h264`): AVCC input is converted with SPS/PPS inserted before every IDR
/// that lacks them; Annex B input passes through with the same insertion.
final class AnnexBSink: PacketSink {
    private enum Conversion {
        case fromAVCC(AVCCToAnnexBConverter)
        case passThrough(AnnexBParameterSetInjector)
    }

    let writer: TargetWriter
    private var conversion: Conversion
    private var buffer: [UInt8] = []

    let wantsVideo = true
    let wantsAudio = false
    var bytesWritten: Int64 { writer.sink.bytesWritten }

    init(writer: TargetWriter, video: VideoConfiguration) throws {
        self.writer = writer
        self.conversion = try AnnexBSink.conversion(for: video.bitstream)
        buffer.reserveCapacity(1 << 20)
    }

    private static func conversion(for bitstream: VideoBitstream) throws -> Conversion {
        switch bitstream {
        case let .avcc(record): return .fromAVCC(try AVCCToAnnexBConverter(record: record))
        case let .annexB(extradata): return .passThrough(try AnnexBParameterSetInjector(extradata: extradata))
        }
    }

    func open() throws {}

    func write(_ packet: MediaPacket) throws {
        buffer.removeAll(keepingCapacity: true)
        if let changed = packet.videoConfiguration {
            switch (conversion, changed.bitstream) {
            case (.fromAVCC(var converter), let .avcc(record)):
                try converter.update(record: record)
                conversion = .fromAVCC(converter)
            default:
                conversion = try AnnexBSink.conversion(for: changed.bitstream)
            }
        }
        try packet.data.withUnsafeBytes { bytes in
            switch conversion {
            case var .fromAVCC(converter):
                _ = try converter.convert(bytes, into: &buffer)
                conversion = .fromAVCC(converter)
            case var .passThrough(injector):
                _ = try injector.convert(bytes, into: &buffer)
                conversion = .passThrough(injector)
            }
        }
        try writer.sink.write(buffer)
    }

    func finish() throws { try writer.close() }
    func abandon() { writer.discard() }
}
