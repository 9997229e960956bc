// Outputs on the fly (docs/ARCHITECTURE.md §4): an output added to or removed from a running job, applied to its
// document and validated like any job (limits, URL rules, at most 16 outputs), so the edited document is what a retry
// or a take-over runs. Only network outputs (RTMP and SRT) are edited on the fly; files are refused (see README, "Outputs on the fly").
import Foundation

/// One output edit of a running job.
public struct OutputEdit: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable {
        case add
        case remove
    }

    public var action: Action
    /// The output URL (a secret: messages carry it redacted only).
    public var url: String

    public init(action: Action, url: String) {
        self.action = action
        self.url = url
    }

    /// The edit applied: the new document and spec, and where the output sits among the attempt's outputs.
    public struct Applied: Sendable, Equatable {
        /// The edited job document, as it is published and stored from now on.
        public var document: JSONValue
        /// `document` validated.
        public var spec: JobSpec
        /// The output's index among the attempt's outputs (`OutputSlots`): the new last one for an add.
        public var index: Int
        /// The attempt's outputs after the edit.
        public var slots: OutputSlots
    }

    /// Applies the edit to a running job's spec.
    /// - Parameters:
    ///   - spec: the job as it runs now (earlier edits included).
    ///   - slots: the attempt's outputs by index (removed ones keep theirs).
    /// - Throws: `OutputEditError` naming what is wrong, redacted.
    public func apply(to spec: JobSpec, slots: OutputSlots) throws(OutputEditError) -> Applied {
        let shown = Redaction.redact(url: url)
        guard case var .object(root) = spec.document, case let .array(items)? = root["outputs"] else {
            throw OutputEditError("job \(spec.id) has no outputs array to edit")
        }
        var slots = slots
        let index: Int
        switch action {
        case .add:
            guard OutputEdit.isNetwork(url) else {
                // Not echoed: outside rtmp(s) and srt the redaction keeps the path, which may still be someone's secret.
                let kind = SpecValidator.scheme(of: url).map { "a \($0):// URL" } ?? "a file path"
                throw OutputEditError("only rtmp://, rtmps:// and srt:// outputs can be added to a running job, not \(kind)")
            }
            guard !spec.outputs.contains(where: { $0.url == url }) else {
                throw OutputEditError("job \(spec.id) already has the output \(shown)")
            }
            root["outputs"] = .array(items + [.object(["url": .string(url)])])
            index = slots.urls.count
            slots.urls.append(url)
        case .remove:
            guard let found = slots.index(of: url) else {
                throw OutputEditError("job \(spec.id) has no output \(shown)")
            }
            guard OutputEdit.isNetwork(url) else {
                throw OutputEditError("\(shown) is a file: only RTMP and SRT outputs can be removed from a running job")
            }
            guard spec.outputs.count > 1 else {
                throw OutputEditError("\(shown) is the only output of job \(spec.id); cancel the job instead")
            }
            root["outputs"] = .array(items.filter { OutputEdit.url(of: $0) != url })
            index = found
            slots.removed.insert(found)
        }
        let document = JSONValue.object(root)
        do {
            let edited = try JobSpec.parse(document)
            return Applied(document: document, spec: edited, index: index, slots: slots)
        } catch {
            let problems = error.problems.map { Redaction.scrub($0.description, urls: [url]) }.joined(separator: "; ")
            throw OutputEditError("the edited job \(spec.id) would not be valid: \(problems)")
        }
    }

    /// Whether `url` names a network output that an edit may add or remove: rtmp://, rtmps:// or srt://.
    public static func isNetwork(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("rtmp://") || lower.hasPrefix("rtmps://") || lower.hasPrefix("srt://")
    }

    /// The URL of one `outputs` item: a string, or an object's `url`.
    static func url(of item: JSONValue) -> String? {
        switch item {
        case let .string(text): return text
        case let .object(object):
            if case let .string(text)? = object["url"] { return text }
            return nil
        default: return nil
        }
    }
}

/// A running attempt's outputs by index: the spec's outputs first, then the added ones; a removed output keeps its
/// index (marked removed), so indexes never move while the attempt runs (progress reports them in this order).
public struct OutputSlots: Sendable, Equatable {
    /// Every output the attempt has had, by index.
    public var urls: [String]
    /// Indexes of the outputs removed since the attempt started.
    public var removed: Set<Int> = []

    /// The outputs an attempt starts with.
    /// - Parameter spec: the job the attempt runs.
    public init(spec: JobSpec) {
        urls = spec.outputs.map(\.url)
    }

    public init(urls: [String], removed: Set<Int> = []) {
        self.urls = urls
        self.removed = removed
    }

    /// The index of the output with this URL that the attempt still has.
    public func index(of url: String) -> Int? {
        urls.indices.first { urls[$0] == url && !removed.contains($0) }
    }
}

/// Why an output edit was refused; the text names what was wrong, with URLs redacted.
public struct OutputEditError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
