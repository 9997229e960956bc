import CFFmpeg
import MediaJob

/// Decodes one input stream with whatever libavcodec decoder its codec has (H.264, MPEG-2, AAC, MP3, …).
/// Frames come out in presentation order with `best_effort_timestamp` in the stream's time base.
final class StreamDecoder {
    private let context: CodecContext
    private let packet: CodedPacket
    private let frame: RawFrame
    /// The stream's time base, the unit of every timestamp in and out.
    let timeBase: AVRational
    /// Packets the decoder refused as corrupt; decoding goes on after them, as a player would.
    private(set) var corruptPackets = 0

    /// Opens a decoder for the stream described by `parameters` (the demuxer's codec parameters).
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, kind: String) throws(EncodeError) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .noDecoder(kind: kind, codec: String(cString: avcodec_get_name(parameters.pointee.codec_id)))
        }
        do {
            context = try CodecContext(codec: codec)
            packet = try CodedPacket()
            frame = try RawFrame()
            try check(avcodec_parameters_to_context(context.pointer, parameters), "avcodec_parameters_to_context")
            // Lets the decoder turn skip-samples side data into timestamp adjustments.
            context.pointer.pointee.pkt_timebase = timeBase
            // One thread per core, as ffmpeg's default `-threads auto` does.
            context.pointer.pointee.thread_count = 0
            try context.open()
        } catch {
            throw .ffmpeg(stage: "opening the \(kind) decoder", error)
        }
        self.timeBase = timeBase
    }

    /// Decodes one packet (`nil`: end of stream, drain everything) and hands each frame to `body`, which
    /// must not keep the pointer past its return (it may take a reference with `av_frame_ref`).
    func decode(_ demuxed: DemuxedPacket?, _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        if let demuxed {
            try packet.load(demuxed)
            let status = avcodec_send_packet(context.pointer, packet.pointer)
            av_packet_unref(packet.pointer)
            if status == sluice_averror_invaliddata() {
                corruptPackets += 1
                return
            }
            try check(status, "avcodec_send_packet")
        } else {
            let status = avcodec_send_packet(context.pointer, nil)
            // A second drain request (EOF) has nothing more to give.
            if status == sluice_averror_eof() { return }
            try check(status, "avcodec_send_packet")
        }
        while true {
            let status = avcodec_receive_frame(context.pointer, frame.pointer)
            if status == sluice_averror_eagain() || status == sluice_averror_eof() { return }
            if status == sluice_averror_invaliddata() {
                corruptPackets += 1
                continue
            }
            try check(status, "avcodec_receive_frame")
            defer { av_frame_unref(frame.pointer) }
            try body(frame.pointer)
        }
    }
}
