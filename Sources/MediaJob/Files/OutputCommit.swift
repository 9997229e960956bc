/// The one place a job's finished outputs are published, for both engines (docs/ARCHITECTURE.md §7): each output is
/// moved onto its name in the job's order, then each folder is synced once, so every output is durable before the job
/// is recorded as succeeded.
public enum OutputCommit {
    /// One finished output: what moves it onto its name (nil: nothing to move, a network output), what removes it, and
    /// how its failure is named.
    public struct Output {
        public var rename: () throws -> OutputFile?
        public var discard: () -> Void
        public var failure: (any Error) -> MediaJobError

        public init(rename: @escaping () throws -> OutputFile?, discard: @escaping () -> Void,
                    failure: @escaping (any Error) -> MediaJobError) {
            self.rename = rename
            self.discard = discard
            self.failure = failure
        }
    }

    /// Renames every output in order, then syncs the folders of those renamed, each folder once. After a rename fails,
    /// what is already in place stays (its folder is still synced: it is there for good); that output and the
    /// ones after it are removed.
    /// - Returns: the first failure, or nil when every output is published and durable.
    public static func publish(_ outputs: [Output]) -> MediaJobError? {
        var failure: MediaJobError?
        var renamed: [(output: Output, file: OutputFile)] = []
        for (position, output) in outputs.enumerated() {
            do {
                if let file = try output.rename() { renamed.append((output, file)) }
            } catch {
                failure = output.failure(error)
                for rest in outputs[position...] { rest.discard() }
                break
            }
        }
        if let (position, error) = OutputFile.syncFolders(of: renamed.map(\.file)), failure == nil {
            failure = renamed[position].output.failure(error)
        }
        return failure
    }
}
