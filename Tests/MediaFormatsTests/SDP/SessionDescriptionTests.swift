import Testing
import MediaFormats

@Suite("SDP session description")
struct SessionDescriptionTests {
    /// A camera's DESCRIBE answer (the shape Hikvision and Axis send), H.264 and AAC.
    static let camera = """
        v=0
        o=- 1109162014219182 1109162014219192 IN IP4 192.168.1.64
        s=Media Presentation
        e=NONE
        b=AS:5100
        t=0 0
        a=control:rtsp://192.168.1.64/Streaming/Channels/101/
        m=video 0 RTP/AVP 96
        c=IN IP4 0.0.0.0
        b=AS:5000
        a=recvonly
        a=x-dimensions:1920,1080
        a=control:trackID=1
        a=rtpmap:96 H264/90000
        a=fmtp:96 profile-level-id=420029; packetization-mode=1; sprop-parameter-sets=Z0IAKeKQFAe2AtwEBAaQeJEV,aM48gA==
        m=audio 0 RTP/AVP 97
        a=control:trackID=2
        a=rtpmap:97 MPEG4-GENERIC/44100/2
        a=fmtp:97 streamtype=5;profile-level-id=1;mode=AAC-hbr;SizeLength=13;IndexLength=3;IndexDeltaLength=3;config=1210
        """

    @Test(arguments: ["\n", "\r\n"])
    func readsACameraDescription(lineEnding: String) throws {
        let text = Self.camera.split(separator: "\n").joined(separator: lineEnding) + lineEnding
        let description = try SessionDescription(parsing: text)
        #expect(description.sessionName == "Media Presentation")
        #expect(description.control == "rtsp://192.168.1.64/Streaming/Channels/101/")
        #expect(description.media.count == 2)
        let video = description.media[0]
        #expect(video.media == "video" && video.port == 0 && video.transportProtocol == "RTP/AVP" && video.payloadTypes == [96])
        #expect(video.rtpMaps[96] == MediaDescription.RTPMap(encodingName: "H264", clockRate: 90000))
        #expect(video.formatParameters[96]?["packetization-mode"] == "1")
        #expect(video.control == "trackID=1")
        let sets = try video.h264ParameterSets(payloadType: 96)
        #expect(sets.sps == [[0x67, 0x42, 0x00, 0x29, 0xE2, 0x90, 0x14, 0x07, 0xB6, 0x02, 0xDC, 0x04, 0x04, 0x06, 0x90, 0x78, 0x91, 0x15]])
        #expect(sets.pps == [[0x68, 0xCE, 0x3C, 0x80]])
        let audio = description.media[1]
        #expect(audio.rtpMaps[97] == MediaDescription.RTPMap(encodingName: "MPEG4-GENERIC", clockRate: 44100, channels: 2))
        let aac = try audio.mpeg4GenericParameters(payloadType: 97)
        #expect(aac.sizeLength == 13 && aac.indexLength == 3 && aac.config.samplingFrequency == 44100)
        #expect(SessionDescription.resolve(control: audio.control, base: description.control ?? "")
                == "rtsp://192.168.1.64/Streaming/Channels/101/trackID=2")
    }

    @Test func readsHEVCParameterSets() throws {
        let text = "v=0\r\ns=-\r\nm=video 0 RTP/AVP 98\r\na=rtpmap:98 H265/90000\r\n"
            + "a=fmtp:98 sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwBdlZgJ; sprop-sps=QgEBAWAAAAMAkAAAAwAAAwBdoAKAgC0WWVmkkyvAQA==; sprop-pps=RAHBcrRiQA==\r\n"
        let media = try SessionDescription(parsing: text).media[0]
        let sets = try media.hevcParameterSets(payloadType: 98)
        #expect(sets.vps.count == 1 && sets.sps.count == 1 && sets.pps == [[0x44, 0x01, 0xC1, 0x72, 0xB4, 0x62, 0x40]])
        #expect(try HEVCNALUnitHeader(parsing: sets.vps[0]).nalUnitType == .videoParameterSet)
        #expect(try HEVCNALUnitHeader(parsing: sets.sps[0]).nalUnitType == .sequenceParameterSet)
    }

    @Test(arguments: [
        ("trackID=1", "rtsp://cam/live", "rtsp://cam/live/trackID=1"),
        ("trackID=1", "rtsp://cam/live/", "rtsp://cam/live/trackID=1"),
        ("/trackID=1", "rtsp://cam/live/", "rtsp://cam/live/trackID=1"),
        ("rtsp://other/stream/track1", "rtsp://cam/live/", "rtsp://other/stream/track1"),
        ("*", "rtsp://cam/live/", "rtsp://cam/live/"),
        ("", "rtsp://cam/live", "rtsp://cam/live"),
    ])
    func resolvesControl(control: String, base: String, url: String) {
        #expect(SessionDescription.resolve(control: control, base: base) == url)
    }

    @Test func unknownAndBlankLinesAreIgnored() throws {
        let description = try SessionDescription(parsing: "v=0\n\nx-vendor stuff\nz=\na=tool:camera\nm=application 0 RTP/AVP 107\na=unknown\n")
        #expect(description.media.map(\.payloadTypes) == [[107]])
    }

    @Test(arguments: [
        ("v=1\n", "line 1 \"v=1\": version 1, expected 0"),
        ("v=0\nm=video RTP/AVP 96\n", "line 2 \"m=video RTP/AVP 96\": fewer than four fields"),
        ("v=0\nm=video x RTP/AVP 96\n", "line 2 \"m=video x RTP/AVP 96\": port x is not 0...65535"),
        ("v=0\r\nm=video 0 RTP/AVP 300\r\n", "line 2 \"m=video 0 RTP/AVP 300\": payload type 300 is not 0...127"),
        ("v=0\nm=video 0 RTP/AVP 96\na=rtpmap:96 H264\n", "line 3 \"a=rtpmap:96 H264\": not <encoding name>/<clock rate>"),
        ("v=0\nm=video 0 RTP/AVP 96\na=rtpmap:x H264/90000\n", "line 3 \"a=rtpmap:x H264/90000\": no payload type 0...127"),
        ("v=0\nm=audio 0 RTP/AVP 97\na=rtpmap:97 opus/48000/0\n", "line 3 \"a=rtpmap:97 opus/48000/0\": channels 0 is not a count"),
        ("v=0\nm=audio 0 RTP/AVP 97\na=fmtp:abc mode=AAC-hbr\n", "line 3 \"a=fmtp:abc mode=AAC-hbr\": no payload type 0...127"),
        ("s=no version\n", "no v= line"),
    ])
    func refusesMalformedLines(text: String, reason: String) {
        #expect(throws: MediaFormatError.invalid(structure: "SDP", reason: reason)) { try SessionDescription(parsing: text) }
    }

    @Test func refusesAParameterSetThatIsNotBase64() throws {
        let media = try SessionDescription(parsing: "v=0\nm=video 0 RTP/AVP 96\na=fmtp:96 sprop-parameter-sets=Z0IA*,aM48gA==\n").media[0]
        #expect(throws: MediaFormatError.invalid(structure: "SDP", reason: "sprop-parameter-sets holds \"Z0IA*\", not a base 64 NAL unit")) {
            try media.h264ParameterSets(payloadType: 96)
        }
        // Without the parameter the parameter sets come in band: nothing, and no error.
        let bare = try SessionDescription(parsing: "v=0\nm=video 0 RTP/AVP 96\n").media[0]
        #expect(try bare.h264ParameterSets(payloadType: 96).sps.isEmpty)
    }
}
