import Testing
import MediaFormats

@Suite("HLSMultivariantPlaylist: EXT-X-STREAM-INF and EXT-X-MEDIA")
struct HLSMultivariantPlaylistTests {
    @Test func printsVariantsAndAudioRenditions() throws {
        let playlist = HLSMultivariantPlaylist(
            renditions: [
                .init(type: .audio, groupID: "aac", name: "English", language: "en", isDefault: true, channels: "2",
                      uri: "audio/i.m3u8"),
                .init(type: .audio, groupID: "aac", name: "Commentary", language: "en", channels: "2", uri: "commentary/i.m3u8"),
            ],
            variants: [
                .init(bandwidth: 5_500_000, averageBandwidth: 5_000_000, codecs: ["avc1.640028", "mp4a.40.2"],
                      resolution: (1920, 1080), frameRate: 30000.0 / 1001, audioGroup: "aac", uri: "1080p/i.m3u8"),
                .init(bandwidth: 330_000, codecs: ["avc1.42c01e"], resolution: (320, 240), frameRate: 25, uri: "240p/i.m3u8"),
            ])
        try playlist.validate()
        #expect(playlist.render() == """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/i.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Commentary",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=NO,CHANNELS="2",URI="commentary/i.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=5500000,AVERAGE-BANDWIDTH=5000000,RESOLUTION=1920x1080,FRAME-RATE=29.970,CODECS="avc1.640028,mp4a.40.2",AUDIO="aac"
            1080p/i.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=330000,RESOLUTION=320x240,FRAME-RATE=25.000,CODECS="avc1.42c01e"
            240p/i.m3u8

            """)
    }

    @Test func variantLineMatchesFFmpegsHlsenc() {
        // ffmpeg -f lavfi -i testsrc2=size=640x360:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 2
        //   -c:v libx264 -profile:v high -level 4.0 -c:a aac -hls_segment_type fmp4 -master_pl_name master.m3u8 -f hls i.m3u8
        let variant = HLSMultivariantPlaylist.VariantStream(
            bandwidth: 75900, codecs: ["avc1.640028", "mp4a.40.2"], resolution: (640, 360), uri: "i.m3u8")
        #expect("#EXT-X-STREAM-INF:" + variant.attributes.description
                == #"#EXT-X-STREAM-INF:BANDWIDTH=75900,RESOLUTION=640x360,CODECS="avc1.640028,mp4a.40.2""#)
    }

    @Test func validationRefusesDanglingGroupsAndUnprintableText() {
        let orphan = HLSMultivariantPlaylist(variants: [.init(bandwidth: 1, codecs: [], audioGroup: "a", uri: "v.m3u8")])
        #expect(throws: MediaFormatError.self) { try orphan.validate() }
        let quote = HLSMultivariantPlaylist(variants: [.init(bandwidth: 1, codecs: ["avc1\""], uri: "v.m3u8")])
        #expect(throws: MediaFormatError.self) { try quote.validate() }
        let newline = HLSMultivariantPlaylist(variants: [.init(bandwidth: 1, codecs: [], uri: "v\n.m3u8")])
        #expect(throws: MediaFormatError.self) { try newline.validate() }
        let name = HLSMultivariantPlaylist(renditions: [.init(type: .audio, groupID: "a", name: "x\"y")], variants: [])
        #expect(throws: MediaFormatError.self) { try name.validate() }
    }
}
