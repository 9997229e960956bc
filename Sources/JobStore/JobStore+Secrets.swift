// docs/ARCHITECTURE.md §6: a job's secrets at rest: sealed on the way in, opened only for `jobs retry`.

extension JobStore {
    /// The spec a job can be run again from: in clear when it had no secret, else its sealed spec opened.
    /// - Parameter id: the job's id.
    /// - Throws: `jobNotFound`, `secretsNotStored` (recorded without a key), `secrets` (the key is missing or
    ///   unknown, or the row is damaged).
    public func runnableSpec(id: String) throws(JobStoreError) -> String {
        guard let job = try job(id: id) else { throw .jobNotFound(id: id) }
        if let spec = job.spec { return spec }
        guard let sealed = job.specSealed else { throw .secretsNotStored(jobID: id) }
        do {
            return try SealedSecret.open(sealed, context: SpecSealing.context(jobID: id), with: secrets)
        } catch {
            throw .secrets(jobID: id, error)
        }
    }

    /// The clear and sealed spec columns for a job, sealed with this store's current key.
    func specColumns(jobID: String, spec: String?, redacted: String?) throws(JobStoreError) -> SpecSealing.Columns {
        do {
            return try SpecSealing.columns(jobID: jobID, spec: spec, redacted: redacted, secrets: secrets)
        } catch {
            // AES-GCM sealing fails only on a broken crypto backend; the message carries no key or spec text.
            throw .database("cannot seal the secrets of job '\(jobID)': \(type(of: error))")
        }
    }
}
