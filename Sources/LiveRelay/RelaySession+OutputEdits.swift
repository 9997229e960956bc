// Outputs on the fly (docs/ARCHITECTURE.md §4): an RTMP or SRT output added to, or removed from, a running relay
// session. An added output is a late joiner (it starts at the kept group of pictures, or the next keyframe, with the
// sequence headers); a removed one is flushed and closed politely. The other outputs are not touched: no reconnect,
// no gap.
import Foundation
import JobDocument
import MediaJob
import NIOCore

/// Why the engine did not apply an output edit.
public struct OutputEditRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension RelaySession {
    /// Every output index the session has handed out: RTMP and SRT outputs, files, and outputs removed since the start
    /// (progress snapshots report them all, in index order, so indexes never move).
    var outputSlotCount: Int {
        links.rtmp.count + links.files.count + links.srt.count + links.removedRTMP.count + links.removedSRT.count
    }

    /// On `loop`: opens a new SRT output with the next index (`index` must be it).
    func addOutput(index: Int, name: String, srt url: SRTURL) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !end.begun else { return .failure(OutputEditRefusal("the job is ending")) }
        guard index == outputSlotCount else {
            return .failure(OutputEditRefusal("the job has \(outputSlotCount) outputs here, not \(index): edits crossed; try again"))
        }
        let output = SRTOutputLink(index: index, name: name, url: url, hasVideo: options.video != .drop, hasAudio: options.audio != .drop)
        links.srt.append(output)
        core.addOutput(index)
        connect(output)
        return .success(())
    }

    /// On `loop`: opens a new RTMP output with the next index (`index` must be it).
    func addOutput(index: Int, name: String, endpoint: RTMPEndpoint) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !end.begun else { return .failure(OutputEditRefusal("the job is ending")) }
        guard index == outputSlotCount else {
            return .failure(OutputEditRefusal("the job has \(outputSlotCount) outputs here, not \(index): edits crossed; try again"))
        }
        let output = OutputLink(index: index, name: name, endpoint: endpoint)
        links.rtmp.append(output)
        core.addOutput(index)
        connect(output)
        return .success(())
    }

    /// On `loop`: closes the RTMP output `index` cleanly (what is encoded is flushed first) and keeps its counters.
    func removeOutput(index: Int) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !end.begun else { return .failure(OutputEditRefusal("the job is ending")) }
        guard links.rtmp.count + links.files.count + links.srt.count > 1 else {
            return .failure(OutputEditRefusal("output \(index) is the job's only output"))
        }
        if let position = links.srt.firstIndex(where: { $0.index == index }) {
            removeSRTOutput(at: position)
            return .success(())
        }
        guard let position = links.rtmp.firstIndex(where: { $0.index == index }) else {
            return .failure(OutputEditRefusal("output \(index) is not an RTMP or SRT output of this job"))
        }
        let output = links.rtmp.remove(at: position)
        core.removeOutput(index)
        // Events of this connection are ignored from now on (`outputEvent` looks the index up in `links.rtmp`).
        output.generation += 1
        output.retry?.cancel()
        output.readyTimeout?.cancel()
        if let handler = output.handler {
            if output.ready, let pending = output.pending {
                output.progress.bytes += Int64(pending.readableBytes)
                handler.write(pending)
                handler.flush()
            }
            handler.closePolitely()
        }
        output.pending = nil
        output.handler = nil
        output.ready = false
        output.progress.status = .removed
        links.removedRTMP.append(output)
        return .success(())
    }

    /// On `loop`: what the SRT output has made goes out, and its connection closes once the receiver has it (as at the
    /// job's end); its events are ignored from now on, and its counters stay in the job's progress.
    private func removeSRTOutput(at position: Int) {
        let output = links.srt[position]
        if output.ready {
            output.pending += output.edge.flush()
            flushSRTOutputs()
        }
        links.srt.remove(at: position)
        core.removeOutput(output.index)
        output.generation += 1
        output.retry?.cancel()
        _ = closeDrained(output)
        output.listener?.close()
        output.listener = nil
        output.ready = false
        output.pending.removeAll()
        output.progress.status = .removed
        links.removedSRT.append(output)
    }
}
