// docs/ARCHITECTURE.md §6: which spec text a job row keeps in clear, which sealed, and the migration of older files.
import GRDB

/// The rule for a job's spec columns: `spec` holds the spec in clear only when it carries no secret (it is then
/// equal to `spec_redacted`); otherwise `spec` is NULL and `spec_sealed` holds the whole spec sealed with the
/// current key, or nothing at all when no key is configured. `spec_redacted` is always in clear.
enum SpecSealing {
    /// The spec columns of one row.
    struct Columns: Equatable {
        /// `jobs.spec`: the runnable spec, only when it has no secret.
        var clear: String?
        /// `jobs.spec_sealed`: the whole spec sealed, when it has secrets and a key is configured.
        var sealed: String?
    }

    /// The authenticated context of a job's sealed spec: a blob moved to another row does not open.
    static func context(jobID: String) -> String {
        "jobs.spec_sealed:\(jobID)"
    }

    /// The columns for a spec as submitted.
    /// - Parameters:
    ///   - jobID: the job's id.
    ///   - spec: the spec as submitted (nil when there is none, such as a message that was not text).
    ///   - redacted: the same spec with its secrets masked; nil when it could not be redacted (an invalid
    ///     document), which counts as having secrets.
    ///   - secrets: the keyring, or nil when none is configured.
    static func columns(jobID: String, spec: String?, redacted: String?, secrets: SecretKeyring?) throws -> Columns {
        guard let spec else { return Columns(clear: nil, sealed: nil) }
        if spec == redacted { return Columns(clear: spec, sealed: nil) }
        guard let secrets else { return Columns(clear: nil, sealed: nil) }
        return Columns(clear: nil, sealed: try SealedSecret.seal(spec, context: context(jobID: jobID), with: secrets))
    }

    /// `v4-sealed-specs`: adds `spec_sealed`, then seals (with a key) or drops (without one) every clear spec
    /// that differs from its redacted spec. The store vacuums the file afterwards, so no freed page keeps them.
    static func migrate(_ db: Database, secrets: SecretKeyring?) throws {
        try db.execute(sql: "ALTER TABLE jobs ADD COLUMN spec_sealed TEXT")
        let rows = try Row.fetchAll(db, sql: "SELECT id, spec, spec_redacted FROM jobs WHERE spec IS NOT NULL")
        for row in rows {
            let id: String = row["id"]
            let columns = try columns(jobID: id, spec: row["spec"], redacted: row["spec_redacted"], secrets: secrets)
            guard columns.clear == nil else { continue }
            try db.execute(
                sql: "UPDATE jobs SET spec = NULL, spec_sealed = ? WHERE id = ?", arguments: [columns.sealed, id])
        }
    }
}
