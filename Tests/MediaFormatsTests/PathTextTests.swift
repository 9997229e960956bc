import MediaFormats
import Testing

/// Paths taken apart as text (NSString's path methods trap on Linux for some of these; found by fuzzing).
@Suite("PathText")
struct PathTextTests {
    @Test("last component and parent, as NSString would read them but without its traps", arguments: [
        ("o", "o", ""), ("a/b.flv", "b.flv", "a"), ("a/b.flv/", "b.flv", "a"), ("/o", "o", "/"),
        ("a//", "a", ""), ("///a.flv//", "a.flv", "/"), ("a//b", "b", "a"), ("/x/y/z", "z", "/x/y"), ("/", "", "/"),
    ])
    func split(_ path: String, _ last: String, _ parent: String) {
        #expect(PathText.lastComponent(path) == last)
        #expect(PathText.parent(path) == parent)
    }

    @Test("appending puts exactly one slash between folder and name")
    func appending() {
        #expect(PathText.appending("b", to: "a") == "a/b")
        #expect(PathText.appending("b", to: "/") == "/b")
        #expect(PathText.appending("b", to: "a/") == "a/b")
        #expect(PathText.appending("b", to: "") == "b")
    }
}
