import MediaFormats

/// Constant-frame-rate conversion by output timestamp (drop or duplicate), a stateful transform (a struct with mutating methods).
///
/// Output slot `n` lies at `n / rate` seconds. Each input frame starts at the slot nearest its presentation
/// time, and fills every slot from there up to the next frame's start: a frame whose successor starts in the
/// same slot is dropped, one followed by a gap is repeated. Frames are held one behind, since a frame's
/// slots are known only when the next one (or the end) arrives; the caller keeps the held frame itself.
struct FrameRateConverter: Sendable, Equatable {
    /// Output frames per second as a fraction, as the encoder's time base inverts it.
    let rateNumerator: Int64
    let rateDenominator: Int64
    /// The next slot to fill; slots before it are taken.
    private(set) var nextSlot: Int64?
    /// The slot the held frame starts at (`nil`: no frame held).
    private var heldStart: Int64?
    /// Some frame has been given a slot.
    private var filledAny = false

    /// A gap longer than this many slots is not filled: the held frame shows once and the output jumps,
    /// so a timestamp jump in the input cannot make thousands of copies.
    static let maxFilledSlots: Int64 = 300

    init(rateNumerator: Int64, rateDenominator: Int64) {
        self.rateNumerator = max(rateNumerator, 1)
        self.rateDenominator = max(rateDenominator, 1)
    }

    /// The slot nearest to `microseconds` (halves round up). In 128 bits: a media time of `Int64.max` is exact.
    func slot(at microseconds: Int64) -> Int64 {
        let numerator = Int128(microseconds) * Int128(rateNumerator) * 2 + Int128(rateDenominator) * 1_000_000
        let denominator = Int128(rateDenominator) * 2_000_000
        // Floor division, so negative times round the same way as positive ones.
        let quotient = numerator / denominator
        return Int64(clamping: numerator % denominator < 0 ? quotient - 1 : quotient)
    }

    /// The time of `slot` in microseconds (rounded to nearest), clamped to `Int64`.
    func time(ofSlot slot: Int64) -> Int64 {
        let numerator = Int128(slot) * Int128(rateDenominator) * 1_000_000
        let rate = Int128(Swift.max(rateNumerator, 1))
        return Int64(clamping: (numerator + rate / 2) / rate)
    }

    /// Takes the next input frame, presented at `microseconds`; returns the slots the frame held until now
    /// fills (empty: that frame is dropped). The new frame becomes the held one.
    mutating func push(presentationTime microseconds: Int64) -> Range<Int64> {
        let start = slot(at: microseconds)
        defer { heldStart = start }
        guard let held = heldStart, let next = nextSlot else {
            nextSlot = start
            return start..<start
        }
        let first = max(next, held)
        guard start > first else { return first..<first }
        filledAny = true
        if start.subtractingSaturating(first) > FrameRateConverter.maxFilledSlots {
            nextSlot = start
            return first..<first.addingSaturating(1)
        }
        nextSlot = start
        return first..<start
    }

    /// End of input: the slots the held frame fills, up to the slot of `endTime` (at least one if it is the
    /// only frame, so a one-picture input still makes a picture).
    mutating func finish(endTime microseconds: Int64) -> Range<Int64> {
        guard let held = heldStart, let next = nextSlot else { return 0..<0 }
        heldStart = nil
        let first = max(next, held)
        let minimum = filledAny ? first : first.addingSaturating(1)
        let end = min(max(slot(at: microseconds), minimum), first.addingSaturating(FrameRateConverter.maxFilledSlots))
        nextSlot = end
        return first..<end
    }

    mutating func reset() {
        nextSlot = nil
        heldStart = nil
        filledAny = false
    }
}
