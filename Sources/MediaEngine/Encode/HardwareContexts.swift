import CFFmpeg
import Foundation
import MediaJob

/// Owns a VAAPI device (`AVBufferRef` of an `AVHWDeviceContext`) opened on a DRM render node.
final class VAAPIDevice {
    let reference: UnsafeMutablePointer<AVBufferRef>
    let path: String

    /// Opens the render node at `path`. Without one (no GPU, no `/dev/dri`) this throws, naming the device.
    init(path: String) throws(EncodeError) {
        var device: UnsafeMutablePointer<AVBufferRef>? = nil
        let status = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VAAPI, path, nil, 0)
        do {
            try check(status, "av_hwdevice_ctx_create")
        } catch {
            let step = FileManager.default.fileExists(atPath: path) ? "create the device" : "create the device (no such render node)"
            throw .vaapiUnavailable(device: path, step: step, error)
        }
        guard let device else {
            throw .vaapiUnavailable(device: path, step: "create the device", FFmpegError(function: "av_hwdevice_ctx_create", code: sluice_averror(ENODEV)))
        }
        self.reference = device
        self.path = path
    }

    deinit {
        var owned: UnsafeMutablePointer<AVBufferRef>? = reference
        av_buffer_unref(&owned)
    }
}

/// Owns a pool of VAAPI surfaces (`AVHWFramesContext`) of one size, into which NV12 pictures are uploaded.
final class VAAPIFrames {
    let reference: UnsafeMutablePointer<AVBufferRef>
    /// Kept alive for as long as its frames are.
    let device: VAAPIDevice

    /// Surfaces the pool starts with: the encoder's references and lookahead plus one in flight.
    static let initialPoolSize: Int32 = 20

    init(device: VAAPIDevice, size: PictureSize) throws(EncodeError) {
        guard let frames = av_hwframe_ctx_alloc(device.reference) else {
            throw .vaapiUnavailable(device: device.path, step: "allocate a frames context", FFmpegError(function: "av_hwframe_ctx_alloc", code: sluice_averror(ENOMEM)))
        }
        self.reference = frames
        self.device = device
        // The frames context's data is an AVHWFramesContext (hwcontext.h).
        let context = UnsafeMutableRawPointer(frames.pointee.data).assumingMemoryBound(to: AVHWFramesContext.self)
        context.pointee.format = AV_PIX_FMT_VAAPI
        context.pointee.sw_format = AV_PIX_FMT_NV12
        context.pointee.width = Int32(size.width)
        context.pointee.height = Int32(size.height)
        context.pointee.initial_pool_size = VAAPIFrames.initialPoolSize
        do {
            try check(av_hwframe_ctx_init(frames), "av_hwframe_ctx_init")
        } catch {
            throw .vaapiUnavailable(device: device.path, step: "create a frames context", error)
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVBufferRef>? = reference
        av_buffer_unref(&owned)
    }

    /// Uploads a software NV12 picture into a new surface, timestamps and all.
    func upload(_ picture: UnsafePointer<AVFrame>, into surface: RawFrame) throws(FFmpegError) {
        av_frame_unref(surface.pointer)
        try check(av_hwframe_get_buffer(reference, surface.pointer, 0), "av_hwframe_get_buffer")
        try check(av_hwframe_transfer_data(surface.pointer, picture, 0), "av_hwframe_transfer_data")
        try check(av_frame_copy_props(surface.pointer, picture), "av_frame_copy_props")
    }
}
