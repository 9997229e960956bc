import Testing
@testable import MediaFormats

/// VP8 (RFC 7741) and VP9 (RFC 9628) over RTP: the payload descriptors, frames put back together, key frames found,
/// and the edge's vp08 and vp09 tags with the configuration a key frame says.
@Suite("VP8 and VP9 depacketizers")
struct VPXDepacketizerTests {
    // The first octets of libvpx key frames, 640×360 4:2:0 (ffmpeg -c:v libvpx / libvpx-vp9 -f ivf), and of inter frames.
    static let vp8Key = H264Fixtures.hex("909c009d012a80026801004708858588") + Array(repeating: 0x55, count: 300)
    static let vp8Inter = H264Fixtures.hex("710b000e10ac0018") + Array(repeating: 0x66, count: 40)
    static let vp9Key = H264Fixtures.hex("824983420027f016760a38241c184a10") + Array(repeating: 0x77, count: 300)
    static let vp9Inter = H264Fixtures.hex("860040929c245001") + Array(repeating: 0x88, count: 30)

    static func packet(_ sequenceNumber: UInt16, _ timestamp: UInt32, marker: Bool = false, _ payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 9, payload: payload[...])
    }

    /// VP8 packets of `frame` in `size`-octet pieces: the descriptor with a 15-bit PictureID, TL0PICIDX and TID.
    static func vp8Packets(_ frame: [UInt8], size: Int, sequence: inout UInt16, timestamp: UInt32) -> [RTPPacket] {
        let pieces = stride(from: 0, to: frame.count, by: size).map { Array(frame[$0 ..< min($0 + size, frame.count)]) }
        return pieces.enumerated().map { index, piece in
            defer { sequence &+= 1 }
            let descriptor: [UInt8] = [0x80 | (index == 0 ? 0x10 : 0), 0xE0, 0x81, 0x23, 0x05, 0x40]
            return packet(sequence, timestamp, marker: index == pieces.count - 1, descriptor + piece)
        }
    }

    /// VP9 packets (non-flexible mode, PictureID and layer indices) of one picture's frames, each in `size`-octet pieces.
    static func vp9Packets(_ frames: [[UInt8]], size: Int, sequence: inout UInt16, timestamp: UInt32) -> [RTPPacket] {
        var packets: [RTPPacket] = []
        for (frameIndex, frame) in frames.enumerated() {
            let pieces = stride(from: 0, to: frame.count, by: size).map { Array(frame[$0 ..< min($0 + size, frame.count)]) }
            for (index, piece) in pieces.enumerated() {
                let b: UInt8 = index == 0 ? 0x08 : 0, e: UInt8 = index == pieces.count - 1 ? 0x04 : 0
                let p: UInt8 = VPXKeyframe.isVP9Keyframe(firstByte: frame[0]) ? 0 : 0x40
                let descriptor: [UInt8] = [0x80 | p | 0x20 | b | e, 0x12, UInt8(frameIndex) << 1, 0x03]
                packets.append(packet(sequence, timestamp, marker: frameIndex == frames.count - 1 && index == pieces.count - 1, descriptor + piece))
                sequence &+= 1
            }
        }
        return packets
    }

    @Test("key frames read: VP8's frame tag and size, VP9's uncompressed header and color config")
    func keyframes() throws {
        let vp8 = try #require(try VPXKeyframe(vp8: Self.vp8Key[...]))
        #expect(vp8.width == 640 && vp8.height == 360 && vp8.record.profile == 0 && vp8.record.bitDepth == 8)
        #expect(try VPXKeyframe(vp8: Self.vp8Inter[...]) == nil)
        let vp9 = try #require(try VPXKeyframe(vp9: Self.vp9Key[...]))
        #expect(vp9.width == 640 && vp9.height == 360)
        #expect(vp9.record.profile == 0 && vp9.record.bitDepth == 8 && vp9.record.chromaSubsampling == 0 && !vp9.record.videoFullRange)
        #expect(try VPXKeyframe(vp9: Self.vp9Inter[...]) == nil)
        #expect(VPXKeyframe.isVP9Keyframe(firstByte: Self.vp9Key[0]) && !VPXKeyframe.isVP9Keyframe(firstByte: Self.vp9Inter[0]))
        #expect(throws: MediaFormatError.self) { try VPXKeyframe(vp9: [0x02, 0x49, 0x83, 0x42][...]) }
    }

    @Test("VP8: a key frame in three packets and an inter frame become vp08 tags, the frames whole")
    func vp8ThroughTheEdge() throws {
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 96, clockRate: 90000, codec: .vp8)])
        var sequence: UInt16 = 65534
        var tags: [FLVStreamTag] = []
        for packet in Self.vp8Packets(Self.vp8Key, size: 120, sequence: &sequence, timestamp: 1000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        for packet in Self.vp8Packets(Self.vp8Inter, size: 120, sequence: &sequence, timestamp: 4000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        let video = try tags.map { try FLVVideoData(parsing: $0.data[...]) }
        #expect(video.map(\.packetType) == [.sequenceStart, .codedFrames, .codedFrames])
        #expect(video.allSatisfy { $0.tracks.first?.codec == .fourCC(.vp08) })
        #expect(video.map(\.frameType) == [.keyFrame, .keyFrame, .interFrame])
        let record = try VPCodecConfigurationRecord(parsing: Array(video[0].tracks[0].payload))
        #expect(record.profile == 0 && record.bitDepth == 8)
        #expect(Array(video[1].tracks[0].payload) == Self.vp8Key && Array(video[2].tracks[0].payload) == Self.vp8Inter)
        #expect(tags.map(\.timestamp) == [0, 0, 33])
    }

    @Test("VP8: a padding-only packet after a frame (a sender probing the bandwidth) loses nothing; one after a gap holds the frames back to the next key frame")
    func vp8PaddingOnly() throws {
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 96, clockRate: 90000, codec: .vp8)])
        var sequence: UInt16 = 100
        var tags: [FLVStreamTag] = []
        func padding(_ timestamp: UInt32) -> [UInt8] {
            defer { sequence &+= 1 }
            return RTPPacket(payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: 9, payload: [][...], paddingSize: 224).serialized
        }
        for packet in Self.vp8Packets(Self.vp8Key, size: 120, sequence: &sequence, timestamp: 1000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        tags += converter.feed(padding(1000), track: 0, arrival: 0)
        tags += converter.feed(padding(1000), track: 0, arrival: 0)
        for packet in Self.vp8Packets(Self.vp8Inter, size: 120, sequence: &sequence, timestamp: 4000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        #expect(try tags.map { try FLVVideoData(parsing: $0.data[...]).frameType } == [.keyFrame, .keyFrame, .interFrame])
        #expect(converter.statistics.droppedAccessUnits == 0 && converter.statistics.lostPackets == 0)
        // A lost packet before a padding one may have started the next frame: that frame is dropped, and the inter
        // frames after it wait for a key frame.
        sequence &+= 1
        tags = converter.feed(padding(4000), track: 0, arrival: 0)
        for packet in Self.vp8Packets(Self.vp8Inter, size: 120, sequence: &sequence, timestamp: 7000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        for packet in Self.vp8Packets(Self.vp8Inter, size: 120, sequence: &sequence, timestamp: 10000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        for packet in Self.vp8Packets(Self.vp8Key, size: 120, sequence: &sequence, timestamp: 13000) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        #expect(try tags.map { try FLVVideoData(parsing: $0.data[...]).frameType } == [.keyFrame])
        #expect(converter.statistics.lostPackets == 1 && converter.statistics.droppedAccessUnits == 1)
    }

    @Test("VP9: a key frame in pieces, then a picture of two frames made one superframe with its index")
    func vp9ThroughTheEdge() throws {
        var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: 96, clockRate: 90000, codec: .vp9)])
        var sequence: UInt16 = 10
        var tags: [FLVStreamTag] = []
        for packet in Self.vp9Packets([Self.vp9Key], size: 100, sequence: &sequence, timestamp: 0) { tags += converter.feed(packet.serialized, track: 0, arrival: 0) }
        let second = Array(Self.vp9Inter.prefix(20))
        for packet in Self.vp9Packets([Self.vp9Inter, second], size: 16, sequence: &sequence, timestamp: 3000) {
            tags += converter.feed(packet.serialized, track: 0, arrival: 0)
        }
        let video = try tags.map { try FLVVideoData(parsing: $0.data[...]) }
        #expect(video.map(\.packetType) == [.sequenceStart, .codedFrames, .codedFrames])
        #expect(video.allSatisfy { $0.tracks.first?.codec == .fourCC(.vp09) })
        #expect(video.map(\.frameType) == [.keyFrame, .keyFrame, .interFrame])
        #expect(Array(video[1].tracks[0].payload) == Self.vp9Key)
        // Two frames of 38 and 20 octets: marker 0b11000_001 (1-octet sizes, 2 frames), the sizes, the marker again.
        #expect(Array(video[2].tracks[0].payload) == Self.vp9Inter + second + [0xC1, 38, 20, 0xC1])
    }

    @Test("VP9 descriptors: flexible mode's reference indices and a scalability structure are read past; a piece without its frame's start damages it")
    func vp9Descriptors() throws {
        // Flexible (F) and predicted (P): two P_DIFF octets, the first with N set.
        let flexible = try VP9RTPPayload(parsing: ([0x5C, 0x03, 0x02] + Self.vp9Inter)[...])
        #expect(flexible.content == .nalUnits([Self.vp9Inter[...]]))
        // V: one spatial layer with its size (Y) and a picture group of one picture with one reference (G).
        let structure = try VP9RTPPayload(parsing: ([0x0E, 0x18, 0x02, 0x80, 0x01, 0x68, 0x01, 0x04, 0x01] + Self.vp9Key)[...])
        #expect(structure.content == .nalUnits([Self.vp9Key[...]]))
        var depacketizer = VP9Depacketizer()
        let outputs = depacketizer.depacketize(Self.packet(5, 0, marker: true, [0x04] + Self.vp9Inter))
        guard case .dropped? = outputs.first else {
            Issue.record("a frame's end without its start was delivered: \(outputs)")
            return
        }
        #expect(throws: MediaFormatError.self) { try VP8RTPPayload(parsing: [0x90][...]) }
    }
}
