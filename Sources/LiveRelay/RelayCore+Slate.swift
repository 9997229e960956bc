import MediaFormats
import RTMP

/// The slate in the relay core (docs/ARCHITECTURE.md §4): while it runs, its configurations stand in for the
/// input's, so an output that starts during it starts with them; the input's messages before its first key frame (its
/// first audio frame when it has no video) are held back, their configurations kept; at that frame the input's
/// configurations go out again, then the frame, with its parameter sets in band.
///
/// When to go on and off slate, the slate's frames and its pace are the session's (`RelaySession+Fallback.swift`):
/// they need clocks and a thread that encodes.
extension RelayCore {
    /// The input's configurations and metadata while the slate's stand in for them.
    struct SlateHold: Equatable {
        var inputVideoHeaders: [UInt16: Message]
        var inputAudioHeaders: [UInt16: Message]
    }

    var onSlate: Bool { slate != nil }

    /// The slate starts: `headers` (its configurations) replace the input's, and go to the running outputs and the
    /// started archives now. Its frames then come through `receive` like the input's.
    mutating func enterSlate(headers: [Message], into actions: inout [Action]) {
        slate = SlateHold(inputVideoHeaders: videoHeaders, inputAudioHeaders: audioHeaders)
        replaceHeaders(video: [:], audio: [:])
        // The input's frames kept for late joiners need the input's configurations: a joiner starts at the slate's
        // first key frame instead.
        forgetGOP()
        for header in headers { receive(header, into: &actions) }
    }

    /// While on slate: whether the input's `message` is held back (true), or is where the input comes back (false:
    /// leave the slate, then receive it). A held configuration or metadata is kept for the return.
    mutating func holdForSlate(_ message: Message) -> Bool {
        guard var hold = slate else { return false }
        let kind = FLVTagHead(message)
        if isStart(kind) { return false }
        switch kind.role {
        case .videoHeader: hold.inputVideoHeaders[kind.configurationKey] = message
        case .audioHeader: hold.inputAudioHeaders[kind.configurationKey] = message
        case .data: if let normalized = message.asSetDataFrame() { setMetadata(normalized) }
        default: break
        }
        slate = hold
        return true
    }

    /// The input is back: its configurations again, sent at `resumeAt` (the slate's end on the timeline).
    mutating func leaveSlate(resumeAt: UInt32, into actions: inout [Action]) {
        guard let hold = slate else { return }
        slate = nil
        replaceHeaders(video: hold.inputVideoHeaders, audio: hold.inputAudioHeaders)
        for var header in sequenceHeaders {
            header.timestamp = resumeAt
            forward(header, FLVTagHead(header), into: &actions)
        }
    }

    /// The input's first key frame after a slate (a legacy AVC one) with the SPS and PPS of the input's configuration
    /// in band, so that a player's parser that kept the slate's parameter sets reads the input's slices again. Any
    /// other message is returned as it is.
    func resuming(_ message: Message) -> Message {
        guard FLVTagHead(message).isKeyframe, let header = videoHeaders.min(by: { $0.key < $1.key })?.value else { return message }
        return message.withParameterSets(of: header)
    }
}

extension Message {
    /// A legacy AVC keyframe with the SPS and PPS of `header` (an AVC sequence header) in band before its NAL units, as
    /// FFmpeg's h264_mp4toannexb puts them before an IDR. The pictures are unchanged; any other message is returned as
    /// it is.
    func withParameterSets(of header: Message) -> Message {
        // Legacy AVC (CodecID 7) coded frames: 1 byte frame type/codec, AVCPacketType 1, 3 bytes composition time.
        guard payload.count > 5, payload[0] & 0x0F == 7, payload[1] == 1, header.payload.count > 5,
              header.payload[0] & 0x0F == 7, header.payload[1] == 0,
              let record = try? AVCDecoderConfigurationRecord(parsing: header.payload[5...]) else { return self }
        var body = Array(payload[..<5])
        guard (try? AVCC.write(nalUnits: record.sequenceParameterSets + record.pictureParameterSets,
                               lengthSize: record.nalUnitLengthSize, into: &body)) != nil else { return self }
        body += payload[5...]
        return Message(typeID: typeID, timestamp: timestamp, streamID: streamID, payload: body)
    }
}
