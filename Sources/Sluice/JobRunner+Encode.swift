import JobStore
import MediaEngine
import MediaJob
import JobDocument

extension JobRunner {
    /// Stores the encoder a job got in its row and, when `auto` fell back to software, says why in an event.
    func recordEncoder(_ selection: EncoderSelection, for spec: JobSpec) throws(JobStoreError) {
        try store.setEncoder(id: spec.id, encoder: selection.encoder)
        guard let reason = selection.fallbackReason else { return }
        // The encoder reported is the first encoded rendition's (the job's video, or the first output's own).
        let video = spec.videoRenditions.first { $0.mode == .encode } ?? spec.video
        try store.recordEvent(id: spec.id, kind: .encoderFallback,
                              message: "VAAPI not used, encoding with \(selection.encoder): \(reason)",
                              data: EncoderFallback(requested: video.encoder.rawValue, encoder: selection.encoder, device: video.device, reason: reason))
    }
}

/// The data of a `job.encoder_fallback` event.
struct EncoderFallback: Encodable {
    var requested: String
    var encoder: String
    var device: String
    var reason: String
}
