import Testing
import MediaFormats

/// Inputs the HLSPlaylist fuzzer found, kept in Fuzz/corpus/HLSPlaylist (the file named before each row) and replayed
/// with the fuzz target's check: what reads prints a text that reads back to the same text.
@Suite("HLSMediaPlaylist: fuzz findings")
struct HLSPlaylistFuzzFindingsTests {
    typealias Finding = HLSCaseRow<String, Result<String, MediaFormatError>>

    static let carriageReturnInURI = MediaFormatError.invalid(structure: "HLS media playlist",
                                                              reason: "URI line holds a carriage return")

    static let findings: [Finding] = [
        // crash-uri-trailing-carriage-returns: every read dropped a CR that was not part of a CR LF, and every print
        // put the URI's last CR before an LF, so each round trip lost two.
        .init("CRs ending the last URI line", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\na\r\r\r\r",
              .failure(carriageReturnInURI)),
        // crash-uri-line-of-carriage-returns: the URI "\r" printed as "\r\n", a blank line, so the print did not read.
        .init("a URI line of CRs", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1\n\r\r", .failure(carriageReturnInURI)),
        .init("CR LF line ends and a CR in a comment",
              "#EXTM3U\r\n#EXT-X-TARGETDURATION:1\r\n# a\rb\r\r\n#EXTINF:1,\r\na\r\n",
              .success("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1.000000,\na\n")),
    ]

    @Test(arguments: findings)
    func printingIsStable(_ c: Finding) throws {
        switch c.expected {
        case let .failure(error):
            #expect(throws: error) { try HLSMediaPlaylist(parsing: c.input) }
        case let .success(printed):
            #expect(try HLSMediaPlaylist(parsing: c.input).render() == printed)
            #expect(try HLSMediaPlaylist(parsing: printed).render() == printed)
        }
    }
}
