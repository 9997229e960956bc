// docs/JOBS.md "A ladder in HLS": the multivariant playlist's path and its variants' URIs, and which encoded rungs
// put their keyframes on the input's so that every rendition cuts its segments on the same pictures.
import JobDocument
import MediaJob

extension JobPlan {
    /// The video objects whose encoders follow the input's keyframes: the encoded rungs of a job with a multivariant
    /// playlist, when a rung is copied (its keyframes are the input's) or the input is live (whose encoders start
    /// wherever the stream was joined). A file ladder of encoded rungs alone keeps `gop_s`, which counts from the
    /// same first picture in every rung.
    static func keyframeAlignedVideo(_ spec: JobSpec, live: Bool) -> [VideoSpec] {
        guard spec.hlsMultivariant != nil else { return [] }
        let rungs = spec.outputs.filter { $0.format == .hls }.map { spec.video(of: $0) }
        guard live || rungs.contains(where: { $0.mode == .copy }) else { return [] }
        return rungs.filter { $0.mode == .encode }
    }

    /// The multivariant playlist at `path` (resolved as an output is) over the job's HLS outputs, each named by its
    /// path relative to the playlist's folder (as resolved: a link under the root could have moved a folder).
    static func multivariant(_ path: String, outputs: [OutputDescription], paths: PathPolicy) throws(PlanError) -> HLSMultivariantSettings {
        let resolved: String
        do { resolved = try paths.resolveOutput(path) } catch { throw .path(error) }
        var variants: [HLSMultivariantSettings.Variant] = []
        for (index, output) in outputs.enumerated() where output.kind == .hls {
            guard case let .file(media) = output.target, let uri = MultivariantURI.relative(media, from: resolved) else {
                throw .notAvailable("outputs[\(index)] (\(output.name)) is not in the folder of hls_multivariant (\(path)) or below it")
            }
            variants.append(.init(output: index, uri: uri))
        }
        return HLSMultivariantSettings(path: resolved, name: path, variants: variants)
    }
}
