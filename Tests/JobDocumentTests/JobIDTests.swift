import Foundation
import Testing
@testable import JobDocument

@Suite("Job ids")
struct JobIDTests {
    @Test("isValidID agrees with idPattern (the documented regular expression) on ids good and bad")
    func agreesWithThePattern() {
        let long = String(repeating: "a", count: JobLimits.id.maxLength)
        let ids = ["a", "job-1", "A.b_c:d-9", long, long + "a", "", " ", "job 1", "job/1", "jöb", "\njob", "😀", "a\u{0}b", "-", "..",
                   "[", "`", "@", "{", "Z", "z", "0", "9", "/", ";"]
        for id in ids {
            let pattern = id.range(of: "^\(JobSpec.idPattern)$", options: .regularExpression) != nil
            #expect(JobSpec.isValidID(id) == pattern, "\(id.debugDescription)")
        }
        #expect(JobSpec.isValidID(long) && !JobSpec.isValidID(long + "a") && !JobSpec.isValidID("") && !JobSpec.isValidID("jöb"))
        // Where the two differ, the expression was wrong: ICU's `$` also matches before a final line break, so it
        // let "job\n" through as an id (into logs, events and .part names).
        #expect("job\n".range(of: "^\(JobSpec.idPattern)$", options: .regularExpression) != nil)
        #expect(!JobSpec.isValidID("job\n") && !JobSpec.isValidID("job\r\n"))
    }
}
