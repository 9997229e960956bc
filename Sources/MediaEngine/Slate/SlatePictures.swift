import CFFmpeg
import MediaJob

/// The pictures of a slate file (an image, or the first seconds of a video), decoded on demand. Opened under the
/// input root without following links when the job has roots (as inputs are), through a demuxer whitelist that
/// opens no other file.
struct SlatePictures: Sendable {
    let path: String
    let root: String?

    /// Demuxers a slate may use: still images and the containers jobs read.
    static let allowedDemuxers = "image2,png_pipe,jpeg_pipe,webp_pipe,bmp_pipe,mov,mp4,m4a,3gp,3g2,mj2,flv,live_flv,mpegts,matroska,webm,h264"
    /// A video slate loops its first 10 s at most (the encoded loop stays a few MiB).
    static let maxSeconds = 10.0

    /// Decodes pictures in order, handing each with its time in seconds from the first; stops after `maxSeconds`
    /// or when `body` returns false. Throws a `SlateError` naming the file when it does not open or decode.
    func decode(_ body: (UnsafeMutablePointer<AVFrame>, Double) throws -> Bool) throws(SlateError) {
        let file: InputFile?
        do {
            file = try root.map { root throws(FileAccessError) in try InputFile(path: path, root: root) }
        } catch {
            throw SlateError("fallback.slate \(path): \(error.reason)")
        }
        let url = file?.url ?? "file:" + path
        let options = ["protocol_whitelist": "file", "format_whitelist": SlatePictures.allowedDemuxers]
        do {
            let input = try withExtendedLifetime(file) { try MediaInput(url: url, options: options, interrupter: Interrupter(), timeout: 10) }
            guard let stream = input.streams.first(where: { $0.kind == .video }), let parameters = input.codecParameters(ofStream: stream.index) else {
                throw SlateError("fallback.slate \(path): has no picture (no video stream)")
            }
            let timeBase = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
            let decoder = try StreamDecoder(parameters: parameters, timeBase: timeBase, kind: "slate")
            var origin: Int64?
            var pictures = 0
            var going = true
            let hand: (UnsafeMutablePointer<AVFrame>) throws -> Void = { frame in
                guard going else { return }
                let stamp = frame.pointee.best_effort_timestamp
                let raw = stamp == sluice_nopts_value() ? Int64(pictures) : stamp
                let start = origin ?? raw
                origin = start
                let seconds = stamp == sluice_nopts_value() ? Double(pictures) / 25
                    : Double(raw - start) * Double(timeBase.num) / Double(max(timeBase.den, 1))
                pictures += 1
                if seconds >= SlatePictures.maxSeconds { going = false } else if try !body(frame, seconds) { going = false }
            }
            while going, let packet = try input.readPacket() {
                guard packet.streamIndex == stream.index else { continue }
                try decoder.decode(packet, hand)
            }
            if going { try decoder.decode(nil, hand) }
            guard pictures > 0 else { throw SlateError("fallback.slate \(path): no picture decodes") }
        } catch let error as SlateError {
            throw error
        } catch {
            throw SlateError("fallback.slate \(path): does not decode as an image or video: \(error)")
        }
    }

    /// Checks that the slate opens and its first picture decodes (at job start, so a bad slate fails before any output
    /// is touched).
    func validate() throws(SlateError) {
        try decode { _, _ in false }
    }
}
