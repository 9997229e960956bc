import Testing
import MediaFormats

@Suite("NAL unit header (§7.3.1)")
struct NALUnitTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let byte: UInt8
        let forbidden: Bool
        let refIdc: UInt8
        let type: NALUnitType
        let isVCL: Bool
        let isIDR: Bool
        var testDescription: String { "0x" + String(byte, radix: 16) }
    }

    static let cases: [Case] = [
        Case(byte: 0x67, forbidden: false, refIdc: 3, type: .sequenceParameterSet, isVCL: false, isIDR: false),
        Case(byte: 0x68, forbidden: false, refIdc: 3, type: .pictureParameterSet, isVCL: false, isIDR: false),
        Case(byte: 0x65, forbidden: false, refIdc: 3, type: .codedSliceIDR, isVCL: true, isIDR: true),
        Case(byte: 0x41, forbidden: false, refIdc: 2, type: .codedSliceNonIDR, isVCL: true, isIDR: false),
        Case(byte: 0x01, forbidden: false, refIdc: 0, type: .codedSliceNonIDR, isVCL: true, isIDR: false),
        Case(byte: 0x06, forbidden: false, refIdc: 0, type: .supplementalEnhancementInformation, isVCL: false, isIDR: false),
        Case(byte: 0x09, forbidden: false, refIdc: 0, type: .accessUnitDelimiter, isVCL: false, isIDR: false),
        Case(byte: 0x22, forbidden: false, refIdc: 1, type: .codedSliceDataPartitionA, isVCL: true, isIDR: false),
        Case(byte: 0x0C, forbidden: false, refIdc: 0, type: .fillerData, isVCL: false, isIDR: false),
        Case(byte: 0x14, forbidden: false, refIdc: 0, type: .codedSliceExtension, isVCL: false, isIDR: false),
        // Reserved and unspecified codes stay representable.
        Case(byte: 0x17, forbidden: false, refIdc: 0, type: NALUnitType(rawValue: 23), isVCL: false, isIDR: false),
        Case(byte: 0x1F, forbidden: false, refIdc: 0, type: NALUnitType(rawValue: 31), isVCL: false, isIDR: false),
        // forbidden_zero_bit set: reported, not hidden.
        Case(byte: 0xE5, forbidden: true, refIdc: 3, type: .codedSliceIDR, isVCL: true, isIDR: true),
    ]

    @Test(arguments: cases)
    func parsesHeaderByte(_ c: Case) throws {
        let header = NALUnitHeader(c.byte)
        #expect(header.forbiddenZeroBit == c.forbidden)
        #expect(header.nalRefIdc == c.refIdc)
        #expect(header.nalUnitType == c.type)
        #expect(header.isVCL == c.isVCL)
        #expect(header.isIDR == c.isIDR)
        #expect(header.byte == c.byte)
        #expect(try NALUnitHeader(parsing: [c.byte, 0xFF]) == header)
    }

    @Test func emptyNALUnitThrowsTruncated() {
        #expect(throws: MediaFormatError.truncated(needed: 1, available: 0)) { try NALUnitHeader(parsing: [UInt8]()) }
    }

    @Test func headerFromFieldsRoundTrips() {
        let header = NALUnitHeader(nalRefIdc: 2, nalUnitType: .codedSliceNonIDR)
        #expect(header.byte == 0x41)
        #expect(NALUnitHeader(header.byte) == header)
    }

    @Test func everyByteRoundTrips() {
        for byte in UInt8.min...UInt8.max {
            #expect(NALUnitHeader(byte).byte == byte)
        }
    }

    @Test func namesFollowTable7_1() {
        #expect(NALUnitType.codedSliceIDR.description == "IDR slice")
        #expect(NALUnitType.sequenceParameterSet.description == "SPS")
        #expect(NALUnitType(rawValue: 17).description == "reserved (17)")
        #expect(NALUnitType(rawValue: 30).description == "unspecified (30)")
    }
}
