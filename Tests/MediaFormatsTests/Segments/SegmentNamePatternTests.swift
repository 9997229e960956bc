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

    @Test("names: every path the pattern gives, at any start and with any collision suffix, and nothing else", arguments: [
        "rec/cam-%Y%m%dT%H%M%S.mp4", "rec/%Y/%m/%d/%H%M%S-%j.ts", "rec/cam-%s.flv", "rec/cam.mp4", "rec.d/cam", "50%%.ts",
    ])
    func names(text: String) throws {
        let pattern = try SegmentNamePattern(text)
        for start in [Int64(0), 1_700_000_000, 1_764_288_000, 4_102_444_799] {
            let number = start / 2
            for collision in [0, 1, 12] {
                let path = pattern.path(start: start, number: number, collision: collision)
                #expect(pattern.names(path), "\(text) gives \(path)")
            }
            let path = pattern.path(start: start, number: number)
            // Not the pattern's: a digit more or less, a letter for a digit, another extension or folder, a hidden name.
            #expect(!pattern.names(path + ".part"))
            #expect(!pattern.names("other/" + path))
            #expect(!pattern.names(PathText.parent(path) + "/." + PathText.lastComponent(path)))
        }
        #expect(!pattern.names(""))
    }

    @Test("names: the digits a field takes are counted")
    func namesCountDigits() throws {
        let dated = try SegmentNamePattern("r/%Y%m%d-%H.mp4")
        #expect(dated.names("r/20261128-19.mp4") && dated.names("r/20261128-19-3.mp4"))
        #expect(!dated.names("r/2026112-19.mp4") && !dated.names("r/202611288-19.mp4") && !dated.names("r/2026112a-19.mp4"))
        #expect(!dated.names("r/20261128-19.ts") && !dated.names("r/20261128-19-.mp4") && !dated.names("r/20261128-19-x.mp4"))
        let numbered = try SegmentNamePattern("r/cam.ts")
        #expect(numbered.names("r/cam-00001.ts") && numbered.names("r/cam-123456.ts") && numbered.names("r/cam-00001-1.ts"))
        #expect(!numbered.names("r/cam-0001.ts") && !numbered.names("r/cam.ts") && !numbered.names("r/cam-00001.mp4"))
        let epoch = try SegmentNamePattern("r/c-%s.ts")
        #expect(epoch.names("r/c-7.ts") && epoch.names("r/c-1764288000.ts") && epoch.names("r/c-1764288000-2.ts"))
        #expect(!epoch.names("r/c-.ts") && !epoch.names("r/c-17x.ts"))
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
