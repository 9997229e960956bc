// What a relay session's outputs are, by kind: the links its core's `send` actions reach.
import MediaJob
import NIOCore

extension RelaySession {
    struct Links {
        /// RTMP (and RTMPS) outputs.
        var rtmp: [OutputLink] = []
        /// RTMP outputs removed while the job ran (an output edit): closed, reported with their last counters.
        var removedRTMP: [OutputLink] = []
        /// FLV archives and every other file format (its sink on the file pool).
        var files: [any LiveFileOutput] = []
        /// SRT outputs: MPEG-TS made at the edge, on SRT connections.
        var srt: [SRTOutputLink] = []
        /// SRT outputs removed while the job ran (an output edit): closed, reported with their last counters.
        var removedSRT: [SRTOutputLink] = []
        /// WHEP outputs: each a route on the shared HTTP port and the viewers it serves.
        var whep: [WHEPOutputLink] = []
        /// Every WHEP output's viewers by core index, for the core's `send` actions.
        var whepViewers: [Int: WHEPViewer] = [:]
        /// Viewers made so far (each takes the next core index).
        var nextViewer = 0
        /// The job's tags made RTP payloads once for all its viewers.
        var whepUnits = WHEPUnits()
        /// The viewers' timers (DTLS retransmission, consent, sender reports): one task for all, while there are any.
        var whepTick: RepeatedTask?
        /// The job's AAC made Opus for the WHEP viewers that take audio.
        var whepAudio = WHEPAudio()
    }
}
