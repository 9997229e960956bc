// docs/ARCHITECTURE.md §5: what a job's encoding costs the worker that runs it, so that admission counts the work a
// live encode job brings, not the number of jobs. Pure: decided from the requested settings alone, before any input
// byte is seen, so that every worker puts a job in the same class and charges it the same.

/// The unit of a worker's encode budget (`--encode-slots`): one software H.264 encode of 1280×720 at 30 frames
/// per second. x264's work grows with the pixels it encodes per second (a 1080p30 encode does 2.25× the work of a
/// 720p30 one at the same preset), so a cost is that pixel rate over this one's, rounded up.
public enum EncodeUnit {
    /// Width of the reference picture (720p).
    public static let width = 1280
    /// Height of the reference picture.
    public static let height = 720
    /// Frame rate of the reference encode.
    public static let framesPerSecond = 30
    /// Pixels a second of one unit: 27,648,000.
    public static let pixelRate = width * height * framesPerSecond

    /// The picture assumed for an encode that names neither width nor height: it keeps the input's, which is not
    /// known when the job is admitted; 1080p, what cameras and OBS publish by default (3 units at 30 fps).
    public static let assumedPicture = (width: 1920, height: 1080)
    /// The frame rate assumed for an encode that names none (it keeps the input's): 30.
    public static let assumedFramesPerSecond = 30.0
    /// The shape assumed when only one side is given (the encoder keeps the input's aspect): 16:9.
    public static let assumedAspect = (width: 16, height: 9)
}

extension JobSpec {
    /// The distinct video encodes the job runs: one encoder per distinct setting among the outputs (the job's
    /// `video`, or an output's own rendition), since outputs asking for equal settings share one.
    public var videoEncodes: [VideoSpec] { videoRenditions.filter { $0.mode == .encode } }

    /// What the job's encoding costs a worker, in 720p30-equivalents (`EncodeUnit`): the sum over its distinct
    /// video encodes of `EncodeUnit.cost(of:)`. 0 when no video is encoded: copy and drop cost no codec time, and an
    /// AAC encode (about 1 % of a core at 128 kb/s) is left out, like the copy restream it rides on.
    public var encodeCost: Int {
        videoEncodes.reduce(0) { $0 + EncodeUnit.cost(of: $1) }
    }
}

extension EncodeUnit {
    /// One video encode's cost: its pixel rate (width × height × frames per second, with the assumptions above for
    /// what it leaves to the input) over `pixelRate`, rounded up, at least 1. The encoder choice does not change it:
    /// `auto` falls back to libx264 where no device opens, and a worker's budget must hold either way.
    /// - Parameter video: an encode setting (its mode is not looked at).
    public static func cost(of video: VideoSpec) -> Int {
        let (width, height) = picture(of: video)
        let fps = video.fps ?? assumedFramesPerSecond
        // Width and height are at most 8192 and fps at most 240 (JobLimits), so the rate fits a Double exactly
        // enough; the small tolerance keeps 1280×720×30 at 1 unit whatever the rounding of a fractional fps.
        let units = (Double(width) * Double(height) * fps / Double(pixelRate) - 1e-9).rounded(.up)
        guard units.isFinite, units >= 1 else { return 1 }
        return units < Double(Int32.max) ? Int(units) : Int(Int32.max)
    }

    /// The picture an encode produces, as far as the job says: both sides, one side at `assumedAspect`, or
    /// `assumedPicture`.
    static func picture(of video: VideoSpec) -> (width: Int, height: Int) {
        switch (video.width, video.height) {
        case let (width?, height?): (width, height)
        case let (width?, nil): (width, width * assumedAspect.height / assumedAspect.width)
        case let (nil, height?): (height * assumedAspect.width / assumedAspect.height, height)
        case (nil, nil): assumedPicture
        }
    }
}
