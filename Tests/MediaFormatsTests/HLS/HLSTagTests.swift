import Testing
import MediaFormats

/// One tag (or value) per row: what it prints, and (for tags with attribute lists) that the line reads back.
@Suite("HLS tags and values print as RFC 8216bis writes them")
struct HLSTagTests {
    struct Line: Sendable, CustomTestStringConvertible {
        let name: String
        let printed: String
        let expected: String
        var testDescription: String { name }
    }

    static let lines: [Line] = [
        .init(name: "EXT-X-PART, independent", printed: HLSPartialSegment(duration: 0.5, uri: "p12.0.m4s", independent: true).line,
              expected: #"#EXT-X-PART:DURATION=0.500000,URI="p12.0.m4s",INDEPENDENT=YES"#),
        .init(name: "EXT-X-PART, plain", printed: HLSPartialSegment(duration: 0.333333_3, uri: "p12.1.m4s").line,
              expected: #"#EXT-X-PART:DURATION=0.333333,URI="p12.1.m4s""#),
        .init(name: "EXT-X-PART, gap", printed: HLSPartialSegment(duration: 1, uri: "g.m4s", gap: true).line,
              expected: #"#EXT-X-PART:DURATION=1.000000,URI="g.m4s",GAP=YES"#),
        .init(name: "EXT-X-SERVER-CONTROL, LL-HLS",
              printed: "#" + HLSServerControl.tag + ":" + HLSServerControl(
                canBlockReload: true, canSkipUntil: 12, holdBack: 6, partHoldBack: 1.5).attributes.description,
              expected: "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=1.500"),
        .init(name: "EXT-X-SERVER-CONTROL rounds seconds up, so a lower bound survives printing",
              printed: HLSServerControl(partHoldBack: 3 * 0.333_333_4).attributes.description,
              expected: "PART-HOLD-BACK=1.001"),
        .init(name: "EXT-X-SERVER-CONTROL, CAN-SKIP-DATERANGES only with CAN-SKIP-UNTIL",
              printed: HLSServerControl(canSkipDateRanges: true).attributes.description, expected: ""),
        .init(name: "EXT-X-PRELOAD-HINT",
              printed: "#" + HLSPreloadHint.tag + ":" + HLSPreloadHint(uri: "p12.2.m4s").attributes.description,
              expected: #"#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p12.2.m4s""#),
        .init(name: "EXT-X-RENDITION-REPORT with parts",
              printed: HLSRenditionReport(uri: "../audio/a.m3u8", lastMediaSequenceNumber: 273, lastPartIndex: 2)
                .attributes.description,
              expected: #"URI="../audio/a.m3u8",LAST-MSN=273,LAST-PART=2"#),
        .init(name: "EXT-X-RENDITION-REPORT without parts",
              printed: HLSRenditionReport(uri: "v.m3u8", lastMediaSequenceNumber: 9).attributes.description,
              expected: #"URI="v.m3u8",LAST-MSN=9"#),
        .init(name: "EXT-X-PROGRAM-DATE-TIME in UTC", printed: HLSProgramDateTime(millisecondsSince1970: 1_758_669_056_316).description,
              expected: "2025-09-23T23:10:56.316Z"),
        .init(name: "EXT-X-PROGRAM-DATE-TIME with a zone east of UTC",
              printed: HLSProgramDateTime(millisecondsSince1970: 1_758_669_056_316, utcOffsetMinutes: 120).description,
              expected: "2025-09-24T01:10:56.316+02:00"),
        .init(name: "EXT-X-PROGRAM-DATE-TIME with a zone west of UTC, across a year",
              printed: HLSProgramDateTime(millisecondsSince1970: 1_704_067_200_005, utcOffsetMinutes: -330).description,
              expected: "2023-12-31T18:30:00.005-05:30"),
        .init(name: "EXT-X-PROGRAM-DATE-TIME on a leap day before 1970",
              printed: HLSProgramDateTime(millisecondsSince1970: -58_060_800_000).description,
              expected: "1968-02-29T00:00:00.000Z"),
        .init(name: "EXT-X-PROGRAM-DATE-TIME, the epoch", printed: HLSProgramDateTime(millisecondsSince1970: 0).description,
              expected: "1970-01-01T00:00:00.000Z"),
        .init(name: "EXT-X-PROGRAM-DATE-TIME past year 9999 clamps",
              printed: HLSProgramDateTime(millisecondsSince1970: .max).description, expected: "9999-12-31T23:59:59.999Z"),
        .init(name: "duration: six decimals", printed: HLSNumber.decimal(2.002, fractionDigits: 6), expected: "2.002000"),
        .init(name: "duration: rounds half away from zero", printed: HLSNumber.decimal(0.000_000_5, fractionDigits: 6),
              expected: "0.000001"),
        .init(name: "frame rate: three decimals", printed: HLSNumber.decimal(30000.0 / 1001, fractionDigits: 3), expected: "29.970"),
        .init(name: "NaN prints as zero", printed: HLSNumber.decimal(.nan, fractionDigits: 3), expected: "0.000"),
        .init(name: "negative prints as zero", printed: HLSNumber.decimal(-4, fractionDigits: 0), expected: "0"),
        .init(name: "infinity clamps", printed: HLSNumber.decimal(.infinity, fractionDigits: 1), expected: "1000000000.0"),
    ]

    @Test(arguments: lines)
    func prints(_ line: Line) {
        #expect(line.printed == line.expected)
    }

    @Test func tagsReadBack() throws {
        let part = HLSPartialSegment(duration: 0.5, uri: "a,b.m4s", independent: true, gap: true)
        #expect(try HLSPartialSegment(attributes: .init(parsing: part.attributes.description[...], tag: "EXT-X-PART")) == part)
        let control = HLSServerControl(canBlockReload: true, canSkipUntil: 12, canSkipDateRanges: true, holdBack: 6, partHoldBack: 1.5)
        #expect(try HLSServerControl(attributes: .init(parsing: control.attributes.description[...], tag: "X")) == control)
        let report = HLSRenditionReport(uri: "a.m3u8", lastMediaSequenceNumber: .max, lastPartIndex: 0)
        #expect(try HLSRenditionReport(attributes: .init(parsing: report.attributes.description[...], tag: "X")) == report)
        let hint = HLSPreloadHint(type: .map, uri: "init.mp4")
        #expect(try HLSPreloadHint(attributes: .init(parsing: hint.attributes.description[...], tag: "X")) == hint)
    }

    struct DateCase: Sendable, CustomTestStringConvertible {
        let text: String
        let milliseconds: Int64?
        var testDescription: String { text }
    }

    static let dates: [DateCase] = [
        .init(text: "2025-09-23T23:10:56.316Z", milliseconds: 1_758_669_056_316),
        .init(text: "2025-09-24T01:10:56.316+02:00", milliseconds: 1_758_669_056_316),
        .init(text: "2025-09-24T01:10:56.316+0200", milliseconds: 1_758_669_056_316),
        .init(text: "2025-09-23T23:10:56Z", milliseconds: 1_758_669_056_000),
        .init(text: "2025-09-23T23:10:56.3Z", milliseconds: 1_758_669_056_300),
        .init(text: "2025-09-23T23:10:56.316999Z", milliseconds: 1_758_669_056_316),
        .init(text: "2024-02-29T00:00:00.000Z", milliseconds: 1_709_164_800_000),
        .init(text: "2023-02-29T00:00:00.000Z", milliseconds: nil),
        .init(text: "2025-09-23T23:10:56.316", milliseconds: nil),
        .init(text: "2025-09-23 23:10:56.316Z", milliseconds: nil),
        .init(text: "2025-13-01T00:00:00Z", milliseconds: nil),
        .init(text: "2025-01-01T24:00:00Z", milliseconds: nil),
        .init(text: "2025-01-01T00:00:00.Z", milliseconds: nil),
        .init(text: "2025-01-01T00:00:00Z ", milliseconds: nil),
        .init(text: "2025-01-01T00:00:00+24:00", milliseconds: nil),
        .init(text: "", milliseconds: nil),
    ]

    @Test(arguments: dates)
    func programDateTimeParses(_ c: DateCase) throws {
        if let milliseconds = c.milliseconds {
            #expect(try HLSProgramDateTime(parsing: c.text).millisecondsSince1970 == milliseconds)
        } else {
            #expect(throws: MediaFormatError.self) { try HLSProgramDateTime(parsing: c.text) }
        }
    }

    @Test func calendarRoundTripsAcrossFourHundredYears() {
        // Every day from 1600 to 2400 maps to a date and back, across century and 400-year leap rules.
        for days in stride(from: Int64(-135_140), through: 157_000, by: 1) {
            let (year, month, day) = calendar(days)
            #expect(dayNumber(year, month, day) == days)
        }
    }

    private func calendar(_ days: Int64) -> (Int64, Int64, Int64) {
        let text = HLSProgramDateTime(millisecondsSince1970: days * 86_400_000).description
        let parts = text.prefix(10).split(separator: "-").compactMap { Int64($0) }
        return (parts[0], parts[1], parts[2])
    }

    private func dayNumber(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64? {
        let text = "\(String(repeating: "0", count: 4 - String(year).count))\(year)-"
            + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)T00:00:00Z"
        return (try? HLSProgramDateTime(parsing: text)).map { $0.millisecondsSince1970 / 86_400_000 }
    }

    struct AttributeCase: Sendable, CustomTestStringConvertible {
        let text: String
        let valid: Bool
        var testDescription: String { text }
    }

    static let attributeLists: [AttributeCase] = [
        .init(text: #"A=1,B="x,y",C=YES"#, valid: true),
        .init(text: #"A="""#, valid: true),
        .init(text: "A=1,", valid: false),
        .init(text: "a=1", valid: false),
        .init(text: "A", valid: false),
        .init(text: #"A="x"B=1"#, valid: false),
        .init(text: #"A="x"#, valid: false),
        .init(text: "=1", valid: false),
    ]

    @Test(arguments: attributeLists)
    func attributeListSyntax(_ c: AttributeCase) {
        let parsed = try? HLSAttributeList(parsing: c.text[...], tag: "T")
        #expect((parsed != nil) == c.valid)
        if let parsed { #expect(parsed.description == c.text) }
    }

    @Test func attributeValuesAreChecked() throws {
        let list = try HLSAttributeList(parsing: #"N=18446744073709551615,M=18446744073709551616,D=1.5,E=1e3,Q="q",F=MAYBE"#[...], tag: "T")
        #expect(try list.integer("N", tag: "T") == .max)
        #expect(throws: MediaFormatError.self) { try list.integer("M", tag: "T") }
        #expect(try list.decimal("D", tag: "T") == 1.5)
        #expect(throws: MediaFormatError.self) { try list.decimal("E", tag: "T") }
        #expect(throws: MediaFormatError.self) { try list.enumerated("Q", tag: "T") }
        #expect(throws: MediaFormatError.self) { try list.quoted("D", tag: "T") }
        #expect(throws: MediaFormatError.self) { try list.flag("F", tag: "T") }
        #expect(try list.flag("ABSENT", tag: "T") == false)
        let tooMany = (0...HLSAttributeList.maxAttributes).map { "A\($0)=1" }.joined(separator: ",")
        #expect(throws: MediaFormatError.self) { try HLSAttributeList(parsing: tooMany[...], tag: "T") }
    }
}
