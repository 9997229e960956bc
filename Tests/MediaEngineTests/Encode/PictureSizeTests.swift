import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("PictureSize")
struct PictureSizeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: (Int, Int)
        let requested: (Int?, Int?)
        let expected: (Int, Int)
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "both given", input: (1920, 1080), requested: (1280, 720), expected: (1280, 720)),
        Case(name: "width keeps 16:9", input: (1920, 1080), requested: (640, nil), expected: (640, 360)),
        Case(name: "height keeps 4:3", input: (320, 240), requested: (nil, 120), expected: (160, 120)),
        Case(name: "aspect rounded to an even side", input: (1920, 1080), requested: (426, nil), expected: (426, 240)),
        Case(name: "odd input rounded down", input: (327, 199), requested: (nil, nil), expected: (326, 198)),
        Case(name: "scaled side never below the minimum", input: (4000, 100), requested: (320, nil), expected: (320, 16)),
    ]

    @Test(arguments: cases)
    func target(_ testCase: Case) {
        let size = PictureSize.target(input: PictureSize(width: testCase.input.0, height: testCase.input.1),
                                      width: testCase.requested.0, height: testCase.requested.1)
        #expect(size == PictureSize(width: testCase.expected.0, height: testCase.expected.1))
        #expect(size.width % 2 == 0 && size.height % 2 == 0)
    }
}
