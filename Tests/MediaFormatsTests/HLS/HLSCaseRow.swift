import Testing

/// One row of a case table in the HLS tests: a name for the report, an input and what it should give
/// (nil where the row expects a refusal).
struct HLSCaseRow<Input: Sendable, Expected: Sendable>: Sendable, CustomTestStringConvertible {
    let name: String
    let input: Input
    let expected: Expected
    var testDescription: String { name }

    init(_ name: String, _ input: Input, _ expected: Expected) {
        self.name = name
        self.input = input
        self.expected = expected
    }
}
