// libFuzzer target: the SDP reader (RFC 8866) over arbitrary text, its writer read back, and the WHIP and WHEP
// negotiation (RFC 8829 §5.3) of whatever reads, with its answer read back. Seeds: real offers in Fuzz/corpus/SDPOffer/.
import MediaFormats

private let local = WebRTCLocalEndpoint(iceUfrag: "fuzz", icePassword: "fuzzpasswordfuzzpassword",
                                        fingerprint: DTLSFingerprint(hashFunction: "sha-256", digest: Array(repeating: 0xAB, count: 32)),
                                        addresses: ["192.0.2.1", "2001:db8::1"], port: 50000, sessionID: 1)
private let egress = WebRTCEgress(cname: "fuzz", streamID: "stream",
                                  video: WebRTCEgress.Video(profileLevelID: H264ProfileLevelID(profileIDC: 0x42, constraintFlags: 0xE0, levelIDC: 0x1F),
                                                            track: WebRTCOutgoingTrack(ssrc: 1, rtxSSRC: 2, trackID: "video")),
                                  audio: WebRTCOutgoingTrack(ssrc: 3, trackID: "audio"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    guard let offer = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { return 0 }
    let printed = offer.render()
    if printed.utf8.count <= SessionDescription.maxSize {
        // The writer always writes s=, so a description without one reads back with "-".
        var expected = offer
        if expected.sessionName == nil { expected.sessionName = "-" }
        guard let reread = try? SessionDescription(parsing: printed), reread == expected else { fatalError("SDP does not read back:\n\(printed)") }
    }
    let roles: [WebRTCNegotiation.Role] = [.ingest, .egress(egress)]
    let negotiation = WebRTCNegotiation(role: roles[Int(selector & 1)], local: local, takesRetransmissionPayloadType: selector & 2 != 0,
                                        takesTransportWideCongestionControl: selector & 4 != 0)
    guard let answer = try? negotiation.answer(offer) else { return 0 }
    let answerText = answer.description.render()
    guard let reread = try? SessionDescription(parsing: answerText), reread == answer.description else { fatalError("answer does not read back:\n\(answerText)") }
    guard !answer.tracks.isEmpty, answer.tracks.count + answer.rejected.count == offer.media.count else { fatalError("tracks and rejections do not cover the offer") }
    return 0
}
