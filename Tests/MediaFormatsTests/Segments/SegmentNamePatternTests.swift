import Testing
@testable import MediaFormats

@Suite("SegmentNamePattern: a recording's segment names from strftime fields in UTC")
struct SegmentNamePatternTests {
    /// 2024-02-29T23:59:58Z: a leap day, for %j.
    static let leapDay: Int64 = 1_709_251_198

    @Test("each field is the segment start's UTC calendar field, zero-padded", arguments: [
        ("rec/cam42-%Y%m%dT%H%M%S.mp4", leapDay, "rec/cam42-20240229T235958.mp4"),
        ("%Y/%j/%H-%M.ts", leapDay, "2024/060/23-59.ts"),
        ("a-%s.mp4", leapDay, "a-1709251198.mp4"),
        ("100%%-%Y.flv", leapDay, "100%-2024.flv"),
        ("%Y-%m-%dT%H:%M:%S", Int64(0), "1970-01-01T00:00:00"),
        ("%Y-%m-%d %j", Int64(-1), "1969-12-31 365"),
        ("%Y-%m-%d %j", Int64(253_402_300_799), "9999-12-31 365"),
        ("%Y%m%d %j", Int64(951_782_400), "20000229 060"),
    ])
    func fields(pattern: String, start: Int64, expected: String) throws {
        #expect(try SegmentNamePattern(pattern).path(start: start, number: 0) == expected)
    }

    @Test("a pattern without a time field gets the segment's number (five digits at least) before its extension")
    func numbered() throws {
        #expect(try SegmentNamePattern("rec/cam.mp4").path(start: 1_200, number: 2) == "rec/cam-00002.mp4")
        #expect(try SegmentNamePattern("rec.d/cam").path(start: 0, number: 2_847_000) == "rec.d/cam-2847000")
        #expect(try SegmentNamePattern("rec/.hidden").path(start: 0, number: 7) == "rec/.hidden-00007")
        #expect(try SegmentNamePattern("50%%.ts").path(start: 0, number: 1) == "50%-00001.ts")
        #expect(try SegmentNamePattern("50%%.ts").hasTimeField == false)
    }

    @Test("a taken name gets -n before its extension")
    func collisions() throws {
        let pattern = try SegmentNamePattern("r/%H%M.mp4")
        #expect(pattern.path(start: 3_600, number: 0, collision: 2) == "r/0100-2.mp4")
        #expect(try SegmentNamePattern("r/c.ts").path(start: 0, number: 3, collision: 1) == "r/c-00003-1.ts")
    }

    @Test("fields outside the list, and a lone % at the end, are refused by name", arguments: [
        ("rec-%F.mp4", SegmentNamePattern.Problem.unknownField("F")),
        ("rec-%Z.mp4", .unknownField("Z")),
        ("rec-%y.mp4", .unknownField("y")),
        ("rec-%.mp4", .unknownField(".")),
        ("rec%", .danglingPercent),
    ])
    func refusals(pattern: String, problem: SegmentNamePattern.Problem) {
        #expect(throws: problem) { try SegmentNamePattern(pattern) }
        #expect(problem.description.contains("%"))
    }
}
