import Foundation
import JobDocument

/// The problems a document is refused with, as `path: message`; empty when it is accepted.
func specProblems(_ text: String) -> [String] {
    do throws(JobSpecError) {
        _ = try JobSpec.parse(Data(text.utf8))
        return []
    } catch {
        return error.problems.map { "\($0.path): \($0.message)" }
    }
}
