// How a PES payload splits into access units: video PES hold one access unit (ISO/IEC 13818-1 §2.14, §2.17); ADTS
// PES hold whole ADTS frames (ISO/IEC 13818-7 §6.2) of 1024 samples each; Opus PES hold packets each behind an
// opus_control_header. Later frames of a PES are timed from the frame before them by its duration.

/// Splits one PES payload into access units for its codec.
enum TSAccessUnitSplitter {
    /// Samples in an AAC frame as ADTS carries it (the 960-sample form cannot be signalled in ADTS).
    static let aacFrameSamples: Int64 = 1024
    /// The PES clock.
    static let clockRate: Int64 = 90000

    /// The access units of `payload`, and the error that stopped the split early (the units before it are kept).
    static func split(_ payload: ArraySlice<UInt8>, pid: UInt16, codec: TSStreamCodec, pts: Int64?, dts: Int64?,
                      randomAccessIndicator: Bool) -> (units: [TSAccessUnit], error: MediaFormatError?) {
        switch codec {
        case .h264, .hevc:
            let bytes = Array(payload)
            let unit = TSAccessUnit(
                pid: pid, codec: codec, pts: pts, dts: dts, isKeyframe: containsRandomAccessPicture(bytes, codec: codec),
                randomAccessIndicator: randomAccessIndicator, payload: bytes)
            return ([unit], nil)
        case .aac:
            return splitADTS(payload, pid: pid, pts: pts, randomAccessIndicator: randomAccessIndicator)
        case .opus:
            return splitOpus(payload, pid: pid, codec: codec, pts: pts, randomAccessIndicator: randomAccessIndicator)
        case .other:
            let unit = TSAccessUnit(pid: pid, codec: codec, pts: pts, dts: dts, isKeyframe: false,
                                    randomAccessIndicator: randomAccessIndicator, payload: Array(payload))
            return ([unit], nil)
        }
    }

    /// An H.264 IDR slice or an HEVC IRAP slice segment among the NAL units.
    static func containsRandomAccessPicture(_ accessUnit: [UInt8], codec: TSStreamCodec) -> Bool {
        AnnexB.nalUnitRanges(in: accessUnit).contains { range in
            let first = accessUnit[range.lowerBound]
            return codec == .hevc ? HEVCNALUnitHeader.type(ofFirstByte: first).isIRAP
                : NALUnitHeader(first).nalUnitType == .codedSliceIDR
        }
    }

    /// The ticks from a frame at `pts` to the next: the 1024-sample duration (fractional at most rates) rounded on a
    /// grid of frame durations anchored at 0, so steps never drift; FFmpeg's demuxer interpolates the same way,
    /// which keeps these timestamps equal to ffprobe's.
    static func frameStep(after pts: Int64, rate: Int64) -> Int64 {
        guard rate > 0 else { return 0 }
        let numerator = aacFrameSamples * clockRate  // one frame is numerator / rate ticks
        // Round half up of a / b for non-negative values.
        func rounded(_ a: Int64, _ b: Int64) -> Int64 { (2 * a + b) / (2 * b) }
        let index = rounded(pts * rate, numerator)
        return rounded((index + 1) * numerator, rate) - rounded(index * numerator, rate)
    }

    /// `base` plus `offset`, modulo 2^33 like the field it came from.
    private static func advance(_ base: Int64?, by offset: Int64) -> Int64? {
        base.map { ($0 + offset) & (PESPacketHeader.timestampModulus - 1) }
    }

    private static func splitADTS(_ payload: ArraySlice<UInt8>, pid: UInt16, pts: Int64?,
                                  randomAccessIndicator: Bool) -> ([TSAccessUnit], MediaFormatError?) {
        var scanner = ADTSFrameScanner(payload)
        var units: [TSAccessUnit] = []
        var framePTS = pts
        do {
            while let frame = try scanner.next() {
                units.append(TSAccessUnit(
                    pid: pid, codec: .aac, pts: framePTS, dts: nil, isKeyframe: true,
                    randomAccessIndicator: randomAccessIndicator && units.isEmpty, payload: Array(payload[frame.payloadRange]),
                    audioSpecificConfig: try frame.header.audioSpecificConfig))
                framePTS = advance(framePTS, by: framePTS.map { frameStep(after: $0, rate: Int64(frame.header.samplingFrequency)) } ?? 0)
            }
            return (units, nil)
        } catch let error as MediaFormatError {
            return (units, error)
        } catch {
            return (units, .invalid(structure: "ADTS frame", reason: "\(error)"))
        }
    }

    private static func splitOpus(_ payload: ArraySlice<UInt8>, pid: UInt16, codec: TSStreamCodec, pts: Int64?,
                                  randomAccessIndicator: Bool) -> ([TSAccessUnit], MediaFormatError?) {
        var index = payload.startIndex
        var offset: Int64 = 0
        var units: [TSAccessUnit] = []
        while index < payload.endIndex {
            do {
                let header = try OpusControlHeader(parsing: payload[index...])
                let start = index + header.encodedLength
                guard payload.endIndex - start >= header.accessUnitSize else {
                    throw MediaFormatError.truncated(needed: header.accessUnitSize, available: payload.endIndex - start)
                }
                let packet = Array(payload[start..<(start + header.accessUnitSize)])
                units.append(TSAccessUnit(
                    pid: pid, codec: codec, pts: advance(pts, by: offset), dts: nil, isKeyframe: true,
                    randomAccessIndicator: randomAccessIndicator && units.isEmpty, payload: packet,
                    opusTrim: header.startTrim == nil && header.endTrim == nil
                        ? nil : .init(start: header.startTrim, end: header.endTrim)))
                offset += OpusPacketDuration.ticks90kHz(of: packet) ?? 0
                index = start + header.accessUnitSize
            } catch let error as MediaFormatError {
                return (units, error)
            } catch {
                return (units, .invalid(structure: "opus_control_header", reason: "\(error)"))
            }
        }
        return (units, nil)
    }
}
