import CFFmpeg
import Testing
@testable import MediaEngine

/// A ladder's smaller rungs scale from a larger rung's picture of the same frame (`ScaleCascade`).
@Suite("ScaleCascade")
struct ScaleCascadeTests {
    static func size(_ width: Int, _ height: Int) -> PictureSize { PictureSize(width: width, height: height) }

    /// A frame of `width`×`height` yuv420p: luma a diagonal ramp (16 to 203), chroma flat, with buffers when `filled`.
    static func picture(_ width: Int, _ height: Int, pts: Int64 = 0, filled: Bool = false) throws -> RawFrame {
        let frame = try RawFrame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.pts = pts
        guard filled else { return frame }
        try #require(av_frame_get_buffer(frame.pointer, 0) == 0)
        let luma = try #require(frame.pointer.pointee.data.0)
        let stride = Int(frame.pointer.pointee.linesize.0)
        for y in 0..<height {
            for x in 0..<width { luma[y * stride + x] = UInt8((x + y) / 16 + 16) }
        }
        for (plane, stride) in [(frame.pointer.pointee.data.1, frame.pointer.pointee.linesize.1),
                                (frame.pointer.pointee.data.2, frame.pointer.pointee.linesize.2)] {
            let chroma = try #require(plane)
            for y in 0..<(height / 2) { for x in 0..<(width / 2) { chroma[y * Int(stride) + x] = 128 } }
        }
        return frame
    }

    @Test("rungs take a frame largest first; equal sizes keep their order")
    func order() {
        let sizes = [Self.size(640, 360), Self.size(1280, 720), Self.size(854, 480), Self.size(1280, 720)]
        #expect(ScaleCascade.order(sizes: sizes) == [1, 3, 2, 0])
        #expect(ScaleCascade.order(sizes: []) == [])
    }

    @Test("a rung scales from the smallest picture of the same frame that covers it, else from the decoded one")
    func source() throws {
        try #require(CodecLibraries.load() == nil)
        let decoded = try Self.picture(1920, 1080)
        let p720 = try Self.picture(1280, 720)
        let p480 = try Self.picture(854, 480)
        let cascade = ScaleCascade(chains: 4)
        cascade.record(index: 0, frame: 7, picture: p720.pointer)
        cascade.record(index: 1, frame: 7, picture: p480.pointer)
        #expect(cascade.source(frame: 7, target: Self.size(640, 360), decoded: decoded.pointer) == p480.pointer)
        #expect(cascade.source(frame: 7, target: Self.size(854, 480), decoded: decoded.pointer) == p480.pointer)
        #expect(cascade.source(frame: 7, target: Self.size(960, 540), decoded: decoded.pointer) == p720.pointer)
        // Wider than any rung on one side: only the decoded picture covers it.
        #expect(cascade.source(frame: 7, target: Self.size(1440, 360), decoded: decoded.pointer) == decoded.pointer)
        // Another frame: the rungs' pictures are of frame 7 and must not be used.
        #expect(cascade.source(frame: 8, target: Self.size(640, 360), decoded: decoded.pointer) == decoded.pointer)
        // A rung as large as the decoded picture (a copy at the input's size) is no cheaper a source.
        let full = try Self.picture(1920, 1080)
        let upscaleCascade = ScaleCascade(chains: 1)
        upscaleCascade.record(index: 0, frame: 1, picture: full.pointer)
        #expect(upscaleCascade.source(frame: 1, target: Self.size(1280, 720), decoded: decoded.pointer) == decoded.pointer)
        // An index outside the cascade is ignored.
        upscaleCascade.record(index: 5, frame: 1, picture: p720.pointer)
        #expect(upscaleCascade.source(frame: 1, target: Self.size(640, 360), decoded: decoded.pointer) == decoded.pointer)
    }

    @Test("a picture scaled through a larger rung matches the one scaled from the decoded frame, with the decoded frame's properties")
    func cascadedPicture() throws {
        try #require(CodecLibraries.load() == nil)
        let decoded = try Self.picture(1920, 1080, pts: 4242, filled: true)
        let to720 = PictureScaler(target: Self.size(1280, 720), format: AV_PIX_FMT_YUV420P)
        let p720 = try RawFrame()
        try to720.scale(decoded.pointer, into: p720, properties: decoded.pointer)
        p720.pointer.pointee.pts = 1 // what a chain does to its own picture before encoding it
        let to360 = PictureScaler(target: Self.size(640, 360), format: AV_PIX_FMT_YUV420P)
        let cascaded = try RawFrame()
        try to360.scale(p720.pointer, into: cascaded, properties: decoded.pointer)
        #expect(cascaded.pointer.pointee.pts == 4242)
        #expect(cascaded.pointer.pointee.width == 640 && cascaded.pointer.pointee.height == 360)
        // The same scaler from the decoded frame: a second source geometry, a second context, the same picture ± 1.
        let direct = try RawFrame()
        try to360.scale(decoded.pointer, into: direct, properties: decoded.pointer)
        let a = try #require(cascaded.pointer.pointee.data.0), b = try #require(direct.pointer.pointee.data.0)
        let (strideA, strideB) = (Int(cascaded.pointer.pointee.linesize.0), Int(direct.pointer.pointee.linesize.0))
        var largest = 0
        var total = 0
        for y in 0..<360 {
            for x in 0..<640 {
                let difference = abs(Int(a[y * strideA + x]) - Int(b[y * strideB + x]))
                largest = max(largest, difference)
                total += difference
            }
        }
        #expect(largest <= 2, "largest luma difference \(largest)")
        #expect(Double(total) / Double(640 * 360) < 0.5, "mean luma difference \(Double(total) / Double(640 * 360))")
        // And the ramp is really there (the comparison is not of two blank pictures).
        #expect(a[0] < a[359 * strideA + 639])
    }
}
