/// One thing wrong with a job document, named by its key path (`outputs[1].format`).
public struct SpecProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why a job document was refused: every problem found, and the job id when it could be read.
public struct JobSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var id: String?
    public var problems: [SpecProblem]
    public var description: String {
        "invalid job\(id.map { " '\($0)'" } ?? ""): " + problems.map(\.description).joined(separator: "; ")
    }
}
