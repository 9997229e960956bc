// docs/ARCHITECTURE.md §7: the owner tag a job's temporary output files carry, the same on every worker and attempt.
import Crypto
import Foundation
import MediaEngine
import MediaJob

extension PartOwner {
    /// The first 8 bytes of the SHA-256 of the job id: fixed length whatever the id, and no other job id can be
    /// made to share it (a shared tag would let one job's start remove another job's parts).
    /// - Parameter jobID: the spec's id.
    public init(jobID: String) {
        let bits = SHA256.hash(data: Data(jobID.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.init(bits: bits)
    }
}
