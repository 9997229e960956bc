// Made by scripts/lib/webrtc-offer.py (aiortc 1.16, GStreamer 1.22 webrtcbin), except `chrome`, written by hand in the
// shape Chrome sends (RFC 8829 §7's examples with Chrome's codec list). Run the script again to make fresh ones.

/// Real WebRTC publisher offers, for the SDP reader, writer and the WHIP/WHEP negotiation.
enum WebRTCOfferFixtures {
    /// aiortc: sendonly H.264 (two profiles, each with rtx) and Opus/G.722/PCMU/PCMA; three fingerprints; host candidates.
    static let aiortc = """
        v=0
        o=- 4004974037 4004974037 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=video 47571 UDP/TLS/RTP/SAVPF 99 100 101 102
        c=IN IP4 192.0.2.2
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:0
        a=msid:e0cac6a0-e3b4-4771-a7ef-bcff77f9dde5 f9cc04c2-8a3c-4a62-8883-fb631154b67b
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 490161804 1502442050
        a=ssrc:490161804 cname:e56ba07d-a2e1-4643-9315-ed660fff0893
        a=ssrc:1502442050 cname:e56ba07d-a2e1-4643-9315-ed660fff0893
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 47571 typ host
        a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 41437 typ host
        a=end-of-candidates
        a=ice-ufrag:TmtK
        a=ice-pwd:jh2rEND6rWikSUefkqipi5
        a=fingerprint:sha-256 D7:CF:3A:5A:CE:96:D7:88:E7:85:CC:95:E4:53:E6:ED:97:E0:CC:8B:96:AD:B1:F5:F8:70:D6:CB:D7:C2:8F:A5
        a=fingerprint:sha-384 18:6E:79:E8:FE:D5:C3:B8:D5:09:84:52:4C:8C:22:9C:95:EA:43:46:5F:AE:31:FC:91:F2:28:9A:DF:43:B7:62:24:2E:4D:9B:B6:0E:D2:73:79:CF:17:BE:24:17:B3:77
        a=fingerprint:sha-512 FB:A7:4F:69:4C:B6:1B:9B:2C:B3:D4:C0:22:A8:B3:E5:DA:C6:E1:FE:CF:66:1F:B5:0D:DC:AE:B0:AA:55:C5:DD:78:60:EA:A0:04:DB:4B:86:F6:FF:D5:56:F7:2B:90:D3:4C:68:8D:62:7D:7B:09:E0:AF:30:1F:01:4B:AF:A1:D3
        a=setup:actpass
        m=audio 34054 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 192.0.2.2
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:1
        a=msid:e0cac6a0-e3b4-4771-a7ef-bcff77f9dde5 200d7721-3c90-43d2-9b01-fb01f223da9e
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1217723646 cname:e56ba07d-a2e1-4643-9315-ed660fff0893
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 34054 typ host
        a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 58350 typ host
        a=end-of-candidates
        a=ice-ufrag:TmtK
        a=ice-pwd:jh2rEND6rWikSUefkqipi5
        a=fingerprint:sha-256 D7:CF:3A:5A:CE:96:D7:88:E7:85:CC:95:E4:53:E6:ED:97:E0:CC:8B:96:AD:B1:F5:F8:70:D6:CB:D7:C2:8F:A5
        a=fingerprint:sha-384 18:6E:79:E8:FE:D5:C3:B8:D5:09:84:52:4C:8C:22:9C:95:EA:43:46:5F:AE:31:FC:91:F2:28:9A:DF:43:B7:62:24:2E:4D:9B:B6:0E:D2:73:79:CF:17:BE:24:17:B3:77
        a=fingerprint:sha-512 FB:A7:4F:69:4C:B6:1B:9B:2C:B3:D4:C0:22:A8:B3:E5:DA:C6:E1:FE:CF:66:1F:B5:0D:DC:AE:B0:AA:55:C5:DD:78:60:EA:A0:04:DB:4B:86:F6:FF:D5:56:F7:2B:90:D3:4C:68:8D:62:7D:7B:09:E0:AF:30:1F:01:4B:AF:A1:D3
        a=setup:actpass
        """

    /// GStreamer webrtcbin: trickle ICE (no candidates), the audio section bundle-only with port 0.
    static let webrtcbin = """
        v=0
        o=- 5727405010835370211 0 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=ice-options:trickle
        a=group:BUNDLE video0 audio1
        m=video 9 UDP/TLS/RTP/SAVPF 102
        c=IN IP4 0.0.0.0
        a=setup:actpass
        a=ice-ufrag:C884Me++nLzeaE/wYy7nxqYAHAodvrCx
        a=ice-pwd:VCdNe86W7ZXuC65aEgr8A/fL4fXL7oMH
        a=rtcp-mux
        a=rtcp-rsize
        a=sendonly
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 nack pli
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 transport-cc
        a=fmtp:102 packetization-mode=1;profile-level-id=42e01f
        a=mid:video0
        a=fingerprint:sha-256 FB:78:C7:B5:1D:D2:F0:F3:BF:1B:94:CB:43:97:5B:6E:1B:6E:9A:57:CD:B2:B7:51:CB:EC:A5:E7:92:60:61:87
        a=rtcp-mux-only
        m=audio 0 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=setup:actpass
        a=ice-ufrag:C884Me++nLzeaE/wYy7nxqYAHAodvrCx
        a=ice-pwd:VCdNe86W7ZXuC65aEgr8A/fL4fXL7oMH
        a=bundle-only
        a=rtcp-mux
        a=rtcp-rsize
        a=sendonly
        a=rtpmap:111 OPUS/48000/2
        a=rtcp-fb:111 transport-cc
        a=mid:audio1
        a=fingerprint:sha-256 FB:78:C7:B5:1D:D2:F0:F3:BF:1B:94:CB:43:97:5B:6E:1B:6E:9A:57:CD:B2:B7:51:CB:EC:A5:E7:92:60:61:87
        a=rtcp-mux-only
        """

    /// Chrome's shape: VP8, H.264 in four profiles and two packetization modes, VP9, AV1, each with rtx; Opus with
    /// red, G.722, PCMU, PCMA; ssrc-group FID and msid; the transport at media level, trickle ICE.
    static let chrome = """
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 108 109 127 125 112 113 98 99 45 46
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Fq2c
        a=ice-pwd:uJ0bX8oUFKhdVSM5P1mT7yeQ
        a=ice-options:trickle
        a=fingerprint:sha-256 1B:5C:63:4A:9E:0D:21:F8:33:A7:CB:40:0E:96:5D:72:18:C4:8F:E3:B9:06:27:DA:51:8C:3F:E0:94:7B:12:66
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 urn:3gpp:video-orientation
        a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e 0d6c9b1e-7d0e-4f8a-9f3d-2c1f5b2a7e11
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:104 H264/90000
        a=rtcp-fb:104 goog-remb
        a=rtcp-fb:104 transport-cc
        a=rtcp-fb:104 ccm fir
        a=rtcp-fb:104 nack
        a=rtcp-fb:104 nack pli
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
        a=rtpmap:105 rtx/90000
        a=fmtp:105 apt=104
        a=rtpmap:106 H264/90000
        a=rtcp-fb:106 goog-remb
        a=rtcp-fb:106 transport-cc
        a=rtcp-fb:106 ccm fir
        a=rtcp-fb:106 nack
        a=rtcp-fb:106 nack pli
        a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=106
        a=rtpmap:108 H264/90000
        a=rtcp-fb:108 goog-remb
        a=rtcp-fb:108 transport-cc
        a=rtcp-fb:108 ccm fir
        a=rtcp-fb:108 nack
        a=rtcp-fb:108 nack pli
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
        a=rtpmap:109 rtx/90000
        a=fmtp:109 apt=108
        a=rtpmap:127 H264/90000
        a=rtcp-fb:127 goog-remb
        a=rtcp-fb:127 transport-cc
        a=rtcp-fb:127 ccm fir
        a=rtcp-fb:127 nack
        a=rtcp-fb:127 nack pli
        a=fmtp:127 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
        a=rtpmap:125 rtx/90000
        a=fmtp:125 apt=127
        a=rtpmap:112 H264/90000
        a=rtcp-fb:112 goog-remb
        a=rtcp-fb:112 transport-cc
        a=rtcp-fb:112 ccm fir
        a=rtcp-fb:112 nack
        a=rtcp-fb:112 nack pli
        a=fmtp:112 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640032
        a=rtpmap:113 rtx/90000
        a=fmtp:113 apt=112
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
        a=ssrc-group:FID 2873547581 1311640419
        a=ssrc:2873547581 cname:Yx3bQ2kLmN8pR4tV
        a=ssrc:2873547581 msid:5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e 0d6c9b1e-7d0e-4f8a-9f3d-2c1f5b2a7e11
        a=ssrc:1311640419 cname:Yx3bQ2kLmN8pR4tV
        a=ssrc:1311640419 msid:5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e 0d6c9b1e-7d0e-4f8a-9f3d-2c1f5b2a7e11
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Fq2c
        a=ice-pwd:uJ0bX8oUFKhdVSM5P1mT7yeQ
        a=ice-options:trickle
        a=fingerprint:sha-256 1B:5C:63:4A:9E:0D:21:F8:33:A7:CB:40:0E:96:5D:72:18:C4:8F:E3:B9:06:27:DA:51:8C:3F:E0:94:7B:12:66
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e 9a2b7c4d-1e3f-4a5b-8c6d-7e8f9a0b1c2d
        a=rtcp-mux
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=ssrc:3735928559 cname:Yx3bQ2kLmN8pR4tV
        a=ssrc:3735928559 msid:5c1bdb0b-9b31-4a3e-8c27-45c7a1c3ad5e 9a2b7c4d-1e3f-4a5b-8c6d-7e8f9a0b1c2d
        """

    static let all: [(name: String, text: String)] = [("aiortc", aiortc), ("webrtcbin", webrtcbin), ("chrome", chrome)]
}
