import Testing
import MediaFormats

/// One tag (or value) per row: what it prints, and (for tags with attribute lists) that the line reads back.
@Suite("HLS tags and values print as RFC 8216bis writes them")
struct HLSTagTests {
    static let lines: [HLSCaseRow<String, String>] = [
        .init("EXT-X-PART, independent", HLSPartialSegment(duration: 0.5, uri: "p12.0.m4s", independent: true).line,
              #"#EXT-X-PART:DURATION=0.500000,URI="p12.0.m4s",INDEPENDENT=YES"#),
        .init("EXT-X-PART, plain", HLSPartialSegment(duration: 0.333333_3, uri: "p12.1.m4s").line,
              #"#EXT-X-PART:DURATION=0.333333,URI="p12.1.m4s""#),
        .init("EXT-X-PART, gap", HLSPartialSegment(duration: 1, uri: "g.m4s", gap: true).line,
              #"#EXT-X-PART:DURATION=1.000000,URI="g.m4s",GAP=YES"#),
        .init("EXT-X-SERVER-CONTROL, LL-HLS", "#" + HLSServerControl.tag + ":" + HLSServerControl(
                canBlockReload: true, canSkipUntil: 12, holdBack: 6, partHoldBack: 1.5).attributes.description,
              "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=1.500"),
        .init("EXT-X-SERVER-CONTROL rounds seconds up, so a lower bound survives printing", HLSServerControl(partHoldBack: 3 * 0.333_333_4).attributes.description,
              "PART-HOLD-BACK=1.001"),
        .init("EXT-X-SERVER-CONTROL, CAN-SKIP-DATERANGES only with CAN-SKIP-UNTIL", HLSServerControl(canSkipDateRanges: true).attributes.description, ""),
        .init("EXT-X-PRELOAD-HINT", "#" + HLSPreloadHint.tag + ":" + HLSPreloadHint(uri: "p12.2.m4s").attributes.description,
              #"#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p12.2.m4s""#),
        .init("EXT-X-RENDITION-REPORT with parts", HLSRenditionReport(uri: "../audio/a.m3u8", lastMediaSequenceNumber: 273, lastPartIndex: 2)
                .attributes.description,
              #"URI="../audio/a.m3u8",LAST-MSN=273,LAST-PART=2"#),
        .init("EXT-X-RENDITION-REPORT without parts", HLSRenditionReport(uri: "v.m3u8", lastMediaSequenceNumber: 9).attributes.description,
              #"URI="v.m3u8",LAST-MSN=9"#),
        .init("EXT-X-PROGRAM-DATE-TIME in UTC", HLSProgramDateTime(millisecondsSince1970: 1_758_669_056_316).description,
              "2025-09-23T23:10:56.316Z"),
        .init("EXT-X-PROGRAM-DATE-TIME with a zone east of UTC", HLSProgramDateTime(millisecondsSince1970: 1_758_669_056_316, utcOffsetMinutes: 120).description,
              "2025-09-24T01:10:56.316+02:00"),
        .init("EXT-X-PROGRAM-DATE-TIME with a zone west of UTC, across a year", HLSProgramDateTime(millisecondsSince1970: 1_704_067_200_005, utcOffsetMinutes: -330).description,
              "2023-12-31T18:30:00.005-05:30"),
        .init("EXT-X-PROGRAM-DATE-TIME on a leap day before 1970", HLSProgramDateTime(millisecondsSince1970: -58_060_800_000).description,
              "1968-02-29T00:00:00.000Z"),
        .init("EXT-X-PROGRAM-DATE-TIME, the epoch", HLSProgramDateTime(millisecondsSince1970: 0).description,
              "1970-01-01T00:00:00.000Z"),
        .init("EXT-X-PROGRAM-DATE-TIME past year 9999 clamps", HLSProgramDateTime(millisecondsSince1970: .max).description, "9999-12-31T23:59:59.999Z"),
        .init("duration: six decimals", HLSNumber.decimal(2.002, fractionDigits: 6), "2.002000"),
        .init("duration: rounds half away from zero", HLSNumber.decimal(0.000_000_5, fractionDigits: 6),
              "0.000001"),
        .init("frame rate: three decimals", HLSNumber.decimal(30000.0 / 1001, fractionDigits: 3), "29.970"),
        .init("NaN prints as zero", HLSNumber.decimal(.nan, fractionDigits: 3), "0.000"),
        .init("negative prints as zero", HLSNumber.decimal(-4, fractionDigits: 0), "0"),
        .init("infinity clamps", HLSNumber.decimal(.infinity, fractionDigits: 1), "1000000000.0"),
    ]

    @Test(arguments: lines)
    func prints(_ line: HLSCaseRow<String, String>) {
        #expect(line.input == line.expected)
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

    static let dates: [HLSCaseRow<String, Int64?>] = [
        .init("2025-09-23T23:10:56.316Z", "2025-09-23T23:10:56.316Z", 1_758_669_056_316),
        .init("2025-09-24T01:10:56.316+02:00", "2025-09-24T01:10:56.316+02:00", 1_758_669_056_316),
        .init("2025-09-24T01:10:56.316+0200", "2025-09-24T01:10:56.316+0200", 1_758_669_056_316),
        .init("2025-09-23T23:10:56Z", "2025-09-23T23:10:56Z", 1_758_669_056_000),
        .init("2025-09-23T23:10:56.3Z", "2025-09-23T23:10:56.3Z", 1_758_669_056_300),
        .init("2025-09-23T23:10:56.316999Z", "2025-09-23T23:10:56.316999Z", 1_758_669_056_316),
        .init("2024-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z", 1_709_164_800_000),
        .init("2023-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z", nil),
        .init("2025-09-23T23:10:56.316", "2025-09-23T23:10:56.316", nil),
        .init("2025-09-23 23:10:56.316Z", "2025-09-23 23:10:56.316Z", nil),
        .init("2025-13-01T00:00:00Z", "2025-13-01T00:00:00Z", nil),
        .init("2025-01-01T24:00:00Z", "2025-01-01T24:00:00Z", nil),
        .init("2025-01-01T00:00:00.Z", "2025-01-01T00:00:00.Z", nil),
        .init("2025-01-01T00:00:00Z ", "2025-01-01T00:00:00Z ", nil),
        .init("2025-01-01T00:00:00+24:00", "2025-01-01T00:00:00+24:00", nil),
        .init("", "", nil),
    ]

    @Test(arguments: dates)
    func programDateTimeParses(_ c: HLSCaseRow<String, Int64?>) throws {
        if let milliseconds = c.expected {
            #expect(try HLSProgramDateTime(parsing: c.input).millisecondsSince1970 == milliseconds)
        } else {
            #expect(throws: MediaFormatError.self) { try HLSProgramDateTime(parsing: c.input) }
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

    static let attributeLists: [HLSCaseRow<String, Bool>] = [
        .init(#"A=1,B="x,y",C=YES"#, #"A=1,B="x,y",C=YES"#, true),
        .init(#"A="""#, #"A="""#, true),
        .init("A=1,", "A=1,", false),
        .init("a=1", "a=1", false),
        .init("A", "A", false),
        .init(#"A="x"B=1"#, #"A="x"B=1"#, false),
        .init(#"A="x"#, #"A="x"#, false),
        .init("=1", "=1", false),
    ]

    @Test(arguments: attributeLists)
    func attributeListSyntax(_ c: HLSCaseRow<String, Bool>) {
        let parsed = try? HLSAttributeList(parsing: c.input[...], tag: "T")
        #expect((parsed != nil) == c.expected)
        if let parsed { #expect(parsed.description == c.input) }
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
