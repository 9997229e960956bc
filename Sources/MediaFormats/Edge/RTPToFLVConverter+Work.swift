// The RTP edge's per-packet work (RTPToFLVConverter): one stream's packet through its depacketizer to FLV tags, or to
// G.711 blocks, with what it counts. Apart from the converter's streams, so a stream is worked on in place.

extension RTPToFLVConverter.Work {
    /// One packet through its stream's depacketizer (taken out of its case while it works, so its buffers are held
    /// once) and on to tags or G.711 blocks.
    mutating func depacketize(_ packet: RTPPacket, of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag]) {
        switch stream.depacketizer {
        case let .h264(depacketizer): depacketizeVideo(packet, with: depacketizer, of: &stream, into: &tags, returning: { .h264($0) })
        case let .hevc(depacketizer): depacketizeVideo(packet, with: depacketizer, of: &stream, into: &tags, returning: { .hevc($0) })
        case let .av1(depacketizer): depacketizeVideo(packet, with: depacketizer, of: &stream, into: &tags, returning: { .av1($0) })
        case let .vp8(depacketizer): depacketizeVideo(packet, with: depacketizer, of: &stream, into: &tags, returning: { .vp8($0) })
        case let .vp9(depacketizer): depacketizeVideo(packet, with: depacketizer, of: &stream, into: &tags, returning: { .vp9($0) })
        case var .aac(depacketizer):
            stream.depacketizer = .opus
            let outputs = depacketizer.depacketize(packet)
            stream.depacketizer = .aac(depacketizer)
            appendAAC(outputs, of: &stream, into: &tags)
        case var .latm(depacketizer):
            stream.depacketizer = .opus
            let outputs = depacketizer.depacketize(packet)
            stream.depacketizer = .latm(depacketizer)
            appendAAC(outputs, of: &stream, into: &tags)
        case .opus:
            if !packet.payload.isEmpty { appendAudio(packet.payload, rtpTimestamp: packet.timestamp, of: &stream, into: &tags) }
        case var .g711(sequence):
            let step = sequence.admit(packet.sequenceNumber)
            stream.depacketizer = .g711(sequence)
            switch step {
            case .stale: break
            case let .gap(lostPackets):
                statistics.lostPackets += lostPackets
                statistics.droppedAudioFrames += lostPackets
                appendPCM(packet, of: &stream)
            case .next, .restart: appendPCM(packet, of: &stream)
            }
        }
    }

    /// A video packet through `depacketizer`, taken out of `stream` while it works (so its buffers are held once) and
    /// put back by `returning`; the access units it completes go on to tags.
    private mutating func depacketizeVideo<Payload>(_ packet: RTPPacket, with depacketizer: consuming RTPVideoDepacketizer<Payload>,
                                                    of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag],
                                                    returning: (RTPVideoDepacketizer<Payload>) -> RTPToFLVConverter.Depacketizer) {
        stream.depacketizer = .opus
        let outputs = depacketizer.depacketize(packet)
        let awaitingKeyframe = depacketizer.awaitingKeyframe
        stream.depacketizer = returning(depacketizer)
        for output in outputs { convertVideo(output, of: &stream, awaitingKeyframe: awaitingKeyframe, into: &tags) }
    }

    /// Whether a frame of `stream` at `time` is one the stream already passed before a move back (dropped, counted).
    mutating func passed(_ time: Int64, of stream: inout RTPToFLVConverter.Stream) -> Bool {
        if let resume = stream.resumeAfter {
            if time <= resume {
                statistics.framesDroppedByMove += 1
                return true
            }
            stream.resumeAfter = nil
        }
        stream.lastTime = time
        return false
    }

    mutating func appendAAC(_ outputs: [AACDepacketizerOutput], of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag]) {
        for output in outputs {
            switch output {
            case let .frame(frame): appendAudio(frame.bytes[...], rtpTimestamp: frame.rtpTimestamp, of: &stream, into: &tags)
            case let .dropped(_, reason):
                statistics.droppedAudioFrames += 1
                count(reason)
            }
        }
    }

    /// One G.711 packet decoded onto the stream's run of samples: after a gap of at most a second, silence fills it;
    /// samples the run already has are dropped; a longer jump either way starts a new run at the packet's time.
    mutating func appendPCM(_ packet: RTPPacket, of stream: inout RTPToFLVConverter.Stream) {
        guard case let .g711(law, channels) = stream.format.codec else { return }
        let payload = packet.payload
        guard !payload.isEmpty else { return }
        guard payload.count % channels == 0 else {
            statistics.malformedAccessUnits += 1
            return
        }
        let ticks = stream.unwrapper.unwrap(packet.timestamp)
        let rate = Int64(stream.format.clockRate)
        var start = ticks
        var skip = 0
        var silence = 0
        var startsRun = true
        if let next = stream.nextPCMTicks, abs(ticks - next) <= rate {
            startsRun = false
            start = next
            if ticks >= next {
                silence = Int(ticks - next) * channels
            } else {
                skip = Int(next - ticks) * channels
                guard skip < payload.count else { return }
            }
        }
        let time = place(stream.milliseconds(start))
        guard !passed(time, of: &stream) else { return }
        var samples = [Int16](repeating: 0, count: silence)
        samples += law.decode(payload.dropFirst(skip))
        stream.nextPCMTicks = start + Int64(samples.count / channels)
        pcm.append(EdgePCMBlock(milliseconds: time, samples: samples, sampleRate: stream.format.clockRate,
                                channels: channels, startsRun: startsRun))
    }

    mutating func count(_ reason: RTPDropReason) {
        if case let .packetLoss(lost) = reason { statistics.lostPackets += lost }
    }

    /// An AV1 temporal unit, or a VP8 or VP9 picture: no reordering (these formats send frames in decoding order, a
    /// hidden frame shown later by a frame of its own), so its time is both PTS and DTS.
    private mutating func convertOrdered(_ unit: RTPVideoAccessUnit, of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag]) {
        var dts = place(stream.milliseconds(stream.unwrapper.unwrap(unit.rtpTimestamp)))
        if let last = stream.lastDTS, dts < last { dts = last }
        let result: Result<TSToFLVVideoTrack.Output, any Error>
        if var track = stream.av1.take() {
            result = Result { try track.convert(obus: unit.nalUnits) }
            stream.av1 = track
        } else if var track = stream.vpx.take() {
            result = Result { try track.convert(units: unit.nalUnits) }
            stream.vpx = track
        } else {
            return
        }
        append(result, dts: dts, of: &stream, into: &tags)
    }

    /// A converted frame's tags at `dts`, or what kept it out: the wait for a keyframe, or a malformed unit.
    private mutating func append(_ result: Result<TSToFLVVideoTrack.Output, any Error>, dts: Int64,
                                 of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag]) {
        switch result {
        case let .success(.tags(data)):
            stream.lastDTS = dts
            tags += data.map { FLVStreamTag(type: .video, timestamp: dts, data: $0) }
        case .success(.beforeKeyframe): statistics.framesAwaitingKeyframe += 1
        case .success(.empty): break
        case .failure: statistics.malformedAccessUnits += 1
        }
    }

    mutating func convertVideo(_ output: RTPVideoDepacketizerOutput, of stream: inout RTPToFLVConverter.Stream, awaitingKeyframe: Bool,
                                       into tags: inout [FLVStreamTag]) {
        let unit: RTPVideoAccessUnit
        switch output {
        case let .accessUnit(accessUnit): unit = accessUnit
        case let .dropped(_, reason):
            statistics.droppedAccessUnits += 1
            count(reason)
            return
        }
        // A keyframe delivered clears the depacketizer's wait; a frame before it refers to what was lost.
        if awaitingKeyframe && !unit.isKeyframe {
            statistics.framesAwaitingKeyframe += 1
            return
        }
        if stream.av1 != nil || stream.vpx != nil { return convertOrdered(unit, of: &stream, into: &tags) }
        guard var track = stream.video.take() else { return }
        defer { stream.video = track }
        // The SDP's parameter sets go before a keyframe that carries none in band, so the record can be made from them.
        var nalUnits = unit.nalUnits
        if unit.isKeyframe, case let .h264(sets) = stream.format.codec, !sets.isEmpty, !unit.nalUnits.contains(where: { $0.first.map { $0 & 0x1F == 7 } ?? false }) {
            nalUnits = sets + nalUnits
        }
        if unit.isKeyframe, case let .hevc(sets) = stream.format.codec, !sets.isEmpty,
           !unit.nalUnits.contains(where: { $0.first.map { ($0 >> 1) & 0x3F == 33 } ?? false }) {
            nalUnits = sets + nalUnits
        }
        let pts = place(stream.milliseconds(stream.unwrapper.unwrap(unit.rtpTimestamp)))
        if let maxPTS = stream.maxPTS, pts < maxPTS { stream.reorderDelay = max(stream.reorderDelay, maxPTS - pts) }
        stream.maxPTS = max(stream.maxPTS ?? pts, pts)
        var dts = max(0, pts - stream.reorderDelay)
        if let last = stream.lastDTS, dts < last { dts = last }
        append(Result { try track.convert(nalUnits: nalUnits, compositionTime: Int32(clamping: pts - dts)) }, dts: dts, of: &stream, into: &tags)
    }

    mutating func appendAudio(_ frame: ArraySlice<UInt8>, rtpTimestamp: UInt32, of stream: inout RTPToFLVConverter.Stream, into tags: inout [FLVStreamTag]) {
        let time = place(stream.milliseconds(stream.unwrapper.unwrap(rtpTimestamp)))
        guard !passed(time, of: &stream) else { return }
        do {
            switch stream.format.codec {
            case .aac, .aacLATM:
                if !stream.sentAudioConfiguration, let config = stream.format.codec.audioSpecificConfig {
                    tags.append(FLVStreamTag(type: .audio, timestamp: time, data: FLVAudioTagHeader.aacBody(.sequenceHeader, config.bytes[...])))
                    stream.sentAudioConfiguration = true
                }
                tags.append(FLVStreamTag(type: .audio, timestamp: time, data: FLVAudioTagHeader.aacBody(.raw, frame)))
            case let .opus(channels):
                if !stream.sentAudioConfiguration {
                    let head = try OpusIDHeader(channelCount: UInt8(channels), preSkip: 0, inputSampleRate: 48000).serialized()
                    tags.append(FLVStreamTag(type: .audio, timestamp: time,
                                             data: try FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: head[...]).serialized()))
                    stream.sentAudioConfiguration = true
                }
                tags.append(FLVStreamTag(type: .audio, timestamp: time,
                                         data: try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: frame).serialized()))
            case .h264, .hevc, .av1, .vp8, .vp9, .g711:
                return
            }
        } catch {
            statistics.malformedAccessUnits += 1
        }
    }

    /// A time before the timeline's start is clamped to it, and counted.
    mutating func place(_ milliseconds: Int64) -> Int64 {
        guard milliseconds < 0 else { return milliseconds }
        statistics.timestampsClampedToOrigin += 1
        return 0
    }
}
