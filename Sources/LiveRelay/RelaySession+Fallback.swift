import Foundation
import MediaJob
import MediaFormats
import NIOCore
import NamedThreads
import RTMP

/// A live job's slate (docs/ARCHITECTURE.md §4): prepared from the stream's first sequence headers, started when
/// the input has sent nothing for `after_s`, sent at wall-clock pace with timestamps that carry on, and left at the
/// returning input's first keyframe with its sequence headers. After `max_s` of slate the job ends as an input
/// timeout would.
///
/// Touched on its session's event loop only (the slate is made on a thread of its own, whose result hops back to the
/// loop).
final class FallbackState {
    let options: FallbackOptions
    /// The slate, once made, and the stream it matches.
    var loop: SlateLoop?
    var madeFor: SlateTarget?
    var preparing = false
    /// A configuration arrived since the slate was last checked against the stream.
    var stale = true
    /// Why no slate can be made for this stream (a codec other than H.264/AAC): the outputs wait as without fallback.
    var failure: String?
    /// While on slate: what is due, and when it started (uptime nanoseconds).
    var schedule: SlateSchedule?
    var startedAt: UInt64 = 0
    var ticker: RepeatedTask?
    var check: Scheduled<Void>?
    /// Timeline times of the input's first video frames, to measure its frame rate.
    var frameTimes: [Int64] = []
    /// The input's latest video frame on the timeline: the slate continues its frame grid.
    var lastVideoTime: Int64?
    /// Times on slate, and seconds on slate before the current one.
    var switches = 0
    var pastSeconds = 0.0

    /// Video frames measured before the slate is made (half a second at 30 fps).
    static let measuredFrames = 16

    init(options: FallbackOptions) {
        self.options = options
    }

    var onSlate: Bool { schedule != nil }

    /// Seconds on slate so far, the current slate included.
    func seconds(now: UInt64) -> Double {
        pastSeconds + (schedule == nil ? 0 : Double(now &- startedAt) / 1e9)
    }

    func stop() {
        ticker?.cancel()
        ticker = nil
        check?.cancel()
        check = nil
    }
}

extension RelaySession {
    /// Whether this session feeds outputs a slate can keep alive (a tap for the codec stage has none: its outputs are
    /// publish sessions with slates of their own).
    var feedsOutputs: Bool { !links.rtmp.isEmpty || !links.files.isEmpty }

    /// Seconds without data after which the input is given up: with a fallback, once the input has started, the
    /// slate's span (its own ticker ends it at `max_s`); otherwise `input.timeout_s`.
    var inputDeadline: Double {
        guard let fallback, input.everData, fallback.failure == nil || !feedsOutputs else { return inputTimeout }
        return max(inputTimeout, fallback.options.afterSeconds + fallback.options.maxSeconds + 1)
    }

    // MARK: Watching the input

    /// Looks for a gap of `after_s` again, `after_s` after the latest data.
    func armFallback() {
        guard let fallback, !end.begun, feedsOutputs else { return }
        fallback.check?.cancel()
        let after = fallback.options.afterSeconds
        let quiet = Double(RelaySession.now() &- input.lastData) / 1e9
        let wait = input.everData ? max(after - quiet, 0.01) : after
        fallback.check = loop.scheduleTask(in: .nanoseconds(Int64(ClockConversion.nanoseconds(wait)))) { [self] in fallbackCheck() }
    }

    func fallbackCheck() {
        guard let fallback, !end.begun, !fallback.onSlate else { return }
        let quiet = Double(RelaySession.now() &- input.lastData) / 1e9
        guard input.everData, quiet >= fallback.options.afterSeconds else {
            armFallback()
            return
        }
        if fallback.failure != nil { return }
        guard let slate = fallback.loop else {
            // Still being made (an input that dropped within its first half second): look again shortly.
            fallback.check = loop.scheduleTask(in: .milliseconds(50)) { [self] in fallbackCheck() }
            return
        }
        startSlate(slate, quiet: quiet)
    }

    /// For each input message: measures the frame rate and (re)makes the slate once the stream's configuration is known,
    /// and again when it changes. Per frame this is a few comparisons; the headers are compared only after one arrived.
    func observeForFallback(_ message: Message, _ kind: FLVTagHead) {
        guard let fallback, feedsOutputs else { return }
        if kind.role == .videoHeader || kind.role == .audioHeader {
            fallback.stale = true
            return
        }
        let isVideoFrame = kind.role == .videoFrame
        if isVideoFrame { fallback.lastVideoTime = Int64(message.timestamp) }
        if fallback.frameTimes.count < FallbackState.measuredFrames, isVideoFrame,
           kind.isKeyframe || !fallback.frameTimes.isEmpty {
            fallback.frameTimes.append(Int64(message.timestamp))
        }
        guard fallback.stale, !fallback.preparing, fallback.failure == nil, kind.isFrame else { return }
        let video = core.videoHeaders.min { $0.key < $1.key }?.value.payload
        let audio = core.audioHeaders.min { $0.key < $1.key }?.value.payload
        // Every kind the stream has must be configured, and the rate measured when it has video.
        if core.sawVideo, video == nil || fallback.frameTimes.count < FallbackState.measuredFrames { return }
        if progress.audioFrames > 0, audio == nil { return }
        fallback.stale = false
        if let made = fallback.madeFor, made.videoHeader == video, made.audioHeader == audio { return }
        var rate = 0.0
        if let first = fallback.frameTimes.first, let last = fallback.frameTimes.last, last > first {
            rate = Double(fallback.frameTimes.count - 1) * 1000 / Double(last - first)
        }
        let target = SlateTarget(videoHeader: video, audioHeader: audio, frameRate: rate)
        fallback.preparing = true
        let maker = fallback.options.maker
        let name = options.inputName
        // Encoding takes a moment of CPU: a thread of its own, never the event loop or the file pool.
        startNamedThread("sluice-slate") { [self] in
            let made = Result { () throws(SlateError) -> SlateLoop in try maker.makeSlate(for: target) }
            loop.execute { [self] in
                guard let fallback = self.fallback else { return }
                fallback.preparing = false
                fallback.madeFor = target
                switch made {
                case let .success(slate):
                    fallback.loop = slate
                case let .failure(error):
                    fallback.failure = error.description
                    engine.report("input \(name): no fallback slate: \(error)")
                }
            }
        }
    }

    // MARK: On slate

    func startSlate(_ slate: SlateLoop, quiet: Double) {
        guard let fallback else { return }
        // Timestamps carry on at wall-clock pace from the input's last message, on the input's video frame grid.
        var base = timeline.mediaTime + Int64(quiet * 1000)
        if let last = fallback.lastVideoTime, !slate.videoFrames.isEmpty, slate.frameInterval > 0, base > last {
            base = last + Int64((Double(base - last) / slate.frameInterval).rounded(.up) * slate.frameInterval)
        }
        var schedule = SlateSchedule(loop: slate, base: base)
        fallback.startedAt = RelaySession.now()
        fallback.switches += 1
        // Outputs that start during the slate start with its headers; running ones get them now.
        noteWritability()
        core.enterSlate(headers: schedule.headers.map(Message.init(tag:)), into: &actions)
        apply(actions)
        actions.removeAll(keepingCapacity: true)
        let frames = schedule.due(through: 0)
        fallback.schedule = schedule
        send(frames)
        let interval = max(slate.rateNumerator > 0 ? 1000 * slate.rateDenominator / slate.rateNumerator : 20, 10)
        fallback.ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(interval), delay: .milliseconds(interval)) { [self] _ in slateTick() }
        engine.report("input \(options.inputName): no data for \(quiet.formatted(.number.precision(.fractionLength(1)))) s: outputs on slate (\(fallback.switches))")
        job.report(snapshot())
    }

    func slateTick() {
        guard let fallback, var schedule = fallback.schedule, !end.begun else { return }
        let elapsed = Int64((RelaySession.now() &- fallback.startedAt) / 1_000_000)
        let frames = schedule.due(through: elapsed)
        fallback.schedule = schedule
        send(frames)
        if Double(elapsed) / 1000 >= fallback.options.maxSeconds {
            engine.report("input \(options.inputName): \(fallback.options.maxSeconds.formatted()) s of slate: the input is given up")
            let quiet = Double(RelaySession.now() &- input.lastData) / 1e9
            finish(input.lastEndClean ? .success(()) : .failure(.inputTimedOut(name: options.inputName, seconds: quiet)))
        }
    }

    private func send(_ tags: [FLVStreamTag]) {
        guard !tags.isEmpty else { return }
        noteWritability()
        for message in tags.map(Message.init(tag:)) { relay(message) }
        flushOutputs()
    }

    // MARK: Back to the input

    /// While on slate, the input's messages before its first keyframe (its first audio frame when it has no video)
    /// are held back (their configurations kept); from that one on, the input is relayed again. Returns the messages
    /// to relay as usual (empty while the slate goes on).
    func interceptForSlate(_ messages: [Message]) -> [Message] {
        guard let fallback, fallback.onSlate else { return messages }
        for (index, message) in messages.enumerated() where !core.holdForSlate(message) {
            leaveSlate()
            var resumed = Array(messages[index...])
            resumed[0] = core.resuming(message)
            return resumed
        }
        return []
    }

    func leaveSlate() {
        guard let fallback, let schedule = fallback.schedule else { return }
        fallback.ticker?.cancel()
        fallback.ticker = nil
        fallback.pastSeconds += Double(RelaySession.now() &- fallback.startedAt) / 1e9
        fallback.schedule = nil
        let resume = schedule.end
        timeline.resume(at: resume)
        // The input may have come back with another configuration: the slate is checked against it.
        fallback.stale = true
        // The input's configurations again, before its keyframe.
        noteWritability()
        core.leaveSlate(resumeAt: UInt32(truncatingIfNeeded: resume), into: &actions)
        apply(actions)
        actions.removeAll(keepingCapacity: true)
        engine.report("input \(options.inputName): the input is back after \(Double(schedule.sent) / 1000) s of slate")
        job.report(snapshot())
        armFallback()
    }
}
