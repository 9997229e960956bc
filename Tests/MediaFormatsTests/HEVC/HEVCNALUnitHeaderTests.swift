import Testing
import MediaFormats

@Suite("HEVCNALUnitHeader (ITU-T H.265 §7.3.1.2)")
struct HEVCNALUnitHeaderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let type: UInt8
        let layerId: UInt8
        let temporalId: UInt8
        let isIRAP: Bool
        var testDescription: String { "\(bytes) → type \(type)" }
    }

    static let cases: [Case] = [
        Case(bytes: [0x40, 0x01], type: 32, layerId: 0, temporalId: 0, isIRAP: false),
        Case(bytes: [0x42, 0x01], type: 33, layerId: 0, temporalId: 0, isIRAP: false),
        Case(bytes: [0x44, 0x01], type: 34, layerId: 0, temporalId: 0, isIRAP: false),
        Case(bytes: [0x4E, 0x01], type: 39, layerId: 0, temporalId: 0, isIRAP: false),
        Case(bytes: [0x26, 0x01], type: 19, layerId: 0, temporalId: 0, isIRAP: true),
        Case(bytes: [0x28, 0x01], type: 20, layerId: 0, temporalId: 0, isIRAP: true),
        Case(bytes: [0x2A, 0x01], type: 21, layerId: 0, temporalId: 0, isIRAP: true),
        Case(bytes: [0x20, 0x01], type: 16, layerId: 0, temporalId: 0, isIRAP: true),
        Case(bytes: [0x2E, 0x01], type: 23, layerId: 0, temporalId: 0, isIRAP: true),
        Case(bytes: [0x02, 0x03], type: 1, layerId: 0, temporalId: 2, isIRAP: false),
        Case(bytes: [0x41, 0x0F], type: 32, layerId: 33, temporalId: 6, isIRAP: false),
    ]

    @Test(arguments: cases)
    func parsesAndWrites(_ c: Case) throws {
        let header = try HEVCNALUnitHeader(parsing: c.bytes)
        #expect(header.nalUnitType.rawValue == c.type)
        #expect(header.layerId == c.layerId)
        #expect(header.temporalId == c.temporalId)
        #expect(header.nalUnitType.isIRAP == c.isIRAP)
        #expect(!header.forbiddenZeroBit)
        #expect(header.bytes == c.bytes)
        #expect(HEVCNALUnitHeader(nalUnitType: header.nalUnitType, layerId: c.layerId, temporalId: c.temporalId).bytes == c.bytes)
    }

    @Test func rejectsMalformedHeaders() {
        #expect(throws: MediaFormatError.truncated(needed: 2, available: 0)) { try HEVCNALUnitHeader(parsing: [UInt8]()) }
        #expect(throws: MediaFormatError.truncated(needed: 2, available: 1)) { try HEVCNALUnitHeader(parsing: [0x40]) }
        #expect(throws: MediaFormatError.invalid(structure: "HEVC NAL unit header", reason: "nuh_temporal_id_plus1 0")) {
            try HEVCNALUnitHeader(parsing: [0x40, 0x00])
        }
    }

    @Test func namesTypes() {
        #expect(HEVCNALUnitType.cra.description == "CRA_NUT")
        #expect(HEVCNALUnitType(rawValue: 45).description == "reserved (45)")
        #expect(HEVCNALUnitType(rawValue: 50).description == "unspecified (50)")
        #expect(HEVCNALUnitType.prefixSEI.isVCL == false && HEVCNALUnitType.trailR.isVCL)
    }
}
