// libFuzzer target: the MP4 box reader and box parsers over arbitrary bytes (parsed boxes that the module writes must
// read back the same), and fragments built from fuzz bytes written, read back and checked field by field.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    switch selector % 3 {
    case 0:  // a file: boxes, children, and every box with a parser
        guard let boxes = try? MP4BoxReader.boxes(in: bytes) else {
            _ = try? MP4BoxReader.topLevelBoxes(in: bytes[...])
            return 0
        }
        boxes.forEach(parseTree)
    case 1:  // samples for two tracks, written as a fragment and read back
        roundTripFragment(bytes)
    default:  // a codec configuration: an AudioSpecificConfig, or an OpusHead
        let codec: MP4Track.Codec
        if let header = try? OpusIDHeader(parsing: bytes) {
            codec = .opus(header)
        } else if let config = try? AudioSpecificConfig(parsing: bytes) {
            codec = .aac(config)
        } else {
            return 0
        }
        guard let track = try? MP4Track(id: 1, codec: codec), let writer = try? FragmentedMP4Writer(tracks: [track]),
              let segment = try? writer.initSegment() else { return 0 }
        guard let boxes = try? MP4BoxReader.boxes(in: segment), boxes.map(\.type) == ["ftyp", "moov"] else {
            fatalError("init segment does not read back")
        }
        boxes.forEach(parseTree)
    }
    return 0
}

/// Parses `node` with its type's parser (writing it again where the module writes that box) and then its children.
private func parseTree(_ node: MP4BoxNode) {
    let payload = node.payload
    switch node.type {
    case "ftyp", "styp": expectRoundTrip(try? FileTypeBox(boxType: node.type, parsing: payload)) { try FileTypeBox(boxType: node.type, parsing: $0) }
    case "mfhd": expectRoundTrip(try? MovieFragmentHeaderBox(parsing: payload)) { try MovieFragmentHeaderBox(parsing: $0) }
    case "trex": expectRoundTrip(try? TrackExtendsBox(parsing: payload)) { try TrackExtendsBox(parsing: $0) }
    case "tfdt": expectRoundTrip(try? TrackFragmentBaseMediaDecodeTimeBox(parsing: payload)) { try TrackFragmentBaseMediaDecodeTimeBox(parsing: $0) }
    case "esds": expectRoundTrip(try? ElementaryStreamDescriptorBox(parsing: payload)) { try ElementaryStreamDescriptorBox(parsing: $0) }
    case "dOps": expectRoundTrip(try? OpusSpecificBox(parsing: payload)) { try OpusSpecificBox(parsing: $0) }
    case "tfhd": _ = try? TrackFragmentHeaderBox(parsing: payload)
    case "trun": _ = try? TrackRunBox(parsing: payload)
    case "mdhd": _ = try? MediaHeaderBox(parsing: payload)
    case "hdlr": _ = try? HandlerBox(parsing: payload)
    default: break
    }
    node.children.forEach(parseTree)
}

/// A box that parsed and writes must read back equal from what it wrote.
private func expectRoundTrip<Box: MP4Box & Equatable>(_ box: Box?, _ parse: (ArraySlice<UInt8>) throws -> Box) {
    guard let box, let written = try? box.serialized() else { return }
    guard written.count == box.size, let node = try? MP4BoxReader.topLevelBoxes(in: written[...]).first,
          (try? parse(node.payload)) == box else {
        fatalError("'\(box.boxType)' \(box) does not read back")
    }
}

/// Builds samples from `bytes` (per sample: a flags byte, duration, composition offset, size, then the payload),
/// writes them as one fragment of an AAC and an Opus track, and checks every field read back.
private func roundTripFragment(_ bytes: [UInt8]) {
    guard let aac = try? MP4Track(id: 1, codec: .aac(try AudioSpecificConfig(parsing: [0x12, 0x10]))),
          let opus = try? MP4Track(id: 7, codec: .opus(OpusIDHeader(channelCount: 2, preSkip: 312, inputSampleRate: 48_000))),
          var writer = try? FragmentedMP4Writer(tracks: [aac, opus]),
          var fragmenter = try? MP4Fragmenter(tracks: [opus, aac], fragmentMilliseconds: 20) else {
        fatalError("fixed tracks do not build")
    }
    var samples: [[MP4Sample]] = [[], []]
    var reader = ByteReader(bytes)
    let base = Int64((try? reader.readUInt32()) ?? 0) << 8
    var times: [Int64] = [base, base / 3]
    while let flags = try? reader.readUInt8(), let duration = try? reader.readUInt8(), let offset = try? reader.readUInt8(),
          let length = try? reader.readUInt8(), let payload = try? reader.readBytes(Int(length % 64)) {
        let track = Int(flags & 1)
        let sample = MP4Sample(decodeTime: times[track], duration: UInt32(duration) * 37, compositionOffset: Int32(Int8(bitPattern: offset)) * 101,
                               isSync: flags & 2 != 0, payload: payload)
        samples[track].append(sample)
        times[track] += Int64(sample.duration)
        _ = try? fragmenter.append(sample, track: 1 - track)
    }
    _ = try? fragmenter.finish()
    guard samples.contains(where: { !$0.isEmpty }) else { return }
    guard let fragment = try? writer.fragment(samples), let boxes = try? MP4BoxReader.boxes(in: fragment),
          boxes.map(\.type) == ["moof", "mdat"] else {
        fatalError("fragment does not read back")
    }
    let trafs = boxes[0].children("traf")
    let present = samples.indices.filter { !samples[$0].isEmpty }
    guard trafs.count == present.count else { fatalError("\(trafs.count) traf for \(present.count) tracks") }
    for (traf, index) in zip(trafs, present) {
        guard let tfhd = traf.child("tfhd").flatMap({ try? TrackFragmentHeaderBox(parsing: $0.payload) }),
              let tfdt = traf.child("tfdt").flatMap({ try? TrackFragmentBaseMediaDecodeTimeBox(parsing: $0.payload) }),
              let run = traf.child("trun").flatMap({ try? TrackRunBox(parsing: $0.payload) }), let dataOffset = run.dataOffset else {
            fatalError("traf does not read back")
        }
        let expected = samples[index]
        guard tfhd.trackID == writer.tracks[index].id, tfhd.isDefaultBaseMoof, tfdt.baseMediaDecodeTime == UInt64(expected[0].decodeTime),
              run.entries.map(\.duration) == expected.map(\.duration),
              run.entries.map(\.compositionTimeOffset) == expected.map(\.compositionOffset),
              run.entries.map(\.flags) == expected.map({ MP4SampleFlags(isSync: $0.isSync) }),
              run.entries.map(\.size) == expected.map({ UInt32($0.payload.count) }) else {
            fatalError("track \(index) fragment fields differ")
        }
        let start = Int(dataOffset)
        let payloads = expected.flatMap(\.payload)
        guard start + payloads.count <= fragment.count, Array(fragment[start..<(start + payloads.count)]) == payloads else {
            fatalError("data_offset of track \(index) does not point at its samples")
        }
    }
}
