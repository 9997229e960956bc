/// The size an encoder writes: H.264 4:2:0 needs even dimensions, and a job may give only one side.
struct PictureSize: Sendable, Equatable {
    var width: Int
    var height: Int

    /// The smallest side an encoder is given.
    static let minimumSide = 16

    /// The output size for an input of `input`, given the job's `width` and/or `height`.
    /// One side alone keeps the input's aspect ratio; neither keeps the input size. Always even.
    static func target(input: PictureSize, width: Int?, height: Int?) -> PictureSize {
        switch (width, height) {
        case let (width?, height?):
            return PictureSize(width: even(width), height: even(height))
        case let (width?, nil):
            let scaled = Double(width) * Double(input.height) / Double(max(input.width, 1))
            return PictureSize(width: even(width), height: nearestEven(scaled))
        case let (nil, height?):
            let scaled = Double(height) * Double(input.width) / Double(max(input.height, 1))
            return PictureSize(width: nearestEven(scaled), height: even(height))
        case (nil, nil):
            return PictureSize(width: even(input.width), height: even(input.height))
        }
    }

    /// Rounds down to even (a given odd side loses one column rather than gaining a blank one).
    static func even(_ side: Int) -> Int { max(minimumSide, side & ~1) }

    static func nearestEven(_ side: Double) -> Int { max(minimumSide, Int((side / 2).rounded()) * 2) }
}
