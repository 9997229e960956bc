import MediaFormats
import MediaJob
import Testing
@testable import LiveRelay

/// A WHIP publisher's Opus is made AAC with the channels it sends: the rtpmap's `/2` is no guide (RFC 7587 §7), so the
/// offer's fmtp or else the first packet's TOC byte decides.
@Suite struct OpusChannelsTests {
    /// Records the channel count it was made for and each packet it was given; makes one 4-byte "AAC" frame a packet.
    final class Recording: OpusAudioTranscoding {
        let channels: Int
        var packets: [[UInt8]] = []
        init(channels: Int) { self.channels = channels }
        var audioSpecificConfig: [UInt8] { channels == 1 ? [0x11, 0x88] : [0x11, 0x90] }
        func transcode(_ packet: [UInt8], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])] {
            packets.append(packet)
            return [(milliseconds, [1, 2, 3, 4])]
        }
    }

    /// An Opus tag as the WHIP edge makes it (Enhanced RTMP coded frames) around one packet whose TOC byte is `toc`.
    static func tag(toc: UInt8, at milliseconds: Int64) throws -> FLVStreamTag {
        FLVStreamTag(type: .audio, timestamp: milliseconds,
                     data: try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: [toc, 0xAA, 0xBB][...]).serialized())
    }

    /// Runs `tocs` through a transcoder negotiated for `channels`; the counts it made transcoders for, and its final one.
    static func run(channels: Int, signalledStereo: Bool, tocs: [UInt8]) throws -> (made: [Int], used: Recording, tags: [FLVStreamTag]) {
        var made: [Recording] = []
        let audio = try OpusAudioTranscoder(channels: channels, signalledStereo: signalledStereo) { (count: Int) throws(EncodeError) in
            let recording = Recording(channels: count)
            made.append(recording)
            return recording
        }
        var tags: [FLVStreamTag] = []
        for (index, toc) in tocs.enumerated() { tags += try audio.tags(for: tag(toc: toc, at: Int64(index) * 20)) }
        #expect(audio.channels == made.last?.channels)
        return (made.map(\.channels), try #require(made.last), tags)
    }

    // TOC bytes (RFC 6716 §3.1): config 31 (CELT FB 20 ms) = 0xF8, with the s bit (0x04) for stereo.
    static let mono: UInt8 = 0xF8
    static let stereo: UInt8 = 0xFC

    @Test("a mono first packet, nothing signalled: a mono transcoder before anything is encoded, every packet through it")
    func monoFirstPacket() throws {
        let (made, used, tags) = try Self.run(channels: 2, signalledStereo: false, tocs: [Self.mono, Self.stereo, Self.mono])
        #expect(made == [2, 1])
        #expect(used.packets.map(\.first) == [Self.mono, Self.stereo, Self.mono])
        // The sequence header is the mono one, before the first frame.
        #expect(tags.count == 4 && tags[0].data == FLVAudioTagHeader.aacBody(.sequenceHeader, [0x11, 0x88]))
    }

    @Test("stereo stays stereo: a stereo first packet, or an offer saying sprop-stereo=1 or stereo=1 whatever the first packet")
    func stereoKept() throws {
        #expect(try Self.run(channels: 2, signalledStereo: false, tocs: [Self.stereo, Self.mono]).made == [2])
        #expect(try Self.run(channels: 2, signalledStereo: true, tocs: [Self.mono, Self.mono]).made == [2])
        #expect(OpusAudioTranscoder.signalsStereo(["sprop-stereo": "1"]) && OpusAudioTranscoder.signalsStereo(["stereo": "1", "minptime": "10"]))
        #expect(!OpusAudioTranscoder.signalsStereo(["minptime": "10", "useinbandfec": "1"]) && !OpusAudioTranscoder.signalsStereo(["sprop-stereo": "0"]))
    }

    @Test("a track negotiated as mono is never remade, and a tag that is not coded frames settles nothing")
    func monoNegotiatedAndHeadersIgnored() throws {
        #expect(try Self.run(channels: 1, signalledStereo: false, tocs: [Self.stereo]).made == [1])
        var made: [Int] = []
        let audio = try OpusAudioTranscoder(channels: 2, signalledStereo: false) { (count: Int) throws(EncodeError) in
            made.append(count)
            return Recording(channels: count)
        }
        let head = FLVStreamTag(type: .audio, timestamp: 0,
                                data: try FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: Array("OpusHead".utf8)[...]).serialized())
        #expect(try audio.tags(for: head).isEmpty)
        _ = try audio.tags(for: Self.tag(toc: Self.mono, at: 20))
        #expect(made == [2, 1])
    }
}
