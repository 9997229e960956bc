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
        outputs.count + fileOutputs.count + srtOutputs.count + removedOutputs.count + removedSRTOutputs.count
    }

    /// On `loop`: opens a new SRT output with the next index (`index` must be it).
    func addOutput(index: Int, name: String, srt url: SRTURL) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !ending else { return .failure(OutputEditRefusal("the job is ending")) }
        guard index == outputSlotCount else {
            return .failure(OutputEditRefusal("the job has \(outputSlotCount) outputs here, not \(index): edits crossed; try again"))
        }
        let output = SRTOutputLink(index: index, name: name, url: url, hasVideo: options.video != .drop, hasAudio: options.audio != .drop)
        srtOutputs.append(output)
        core.addOutput(index)
        connect(output)
        return .success(())
    }

    /// On `loop`: opens a new RTMP output with the next index (`index` must be it).
    func addOutput(index: Int, name: String, endpoint: RTMPEndpoint) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !ending else { return .failure(OutputEditRefusal("the job is ending")) }
        guard index == outputSlotCount else {
            return .failure(OutputEditRefusal("the job has \(outputSlotCount) outputs here, not \(index): edits crossed; try again"))
        }
        let output = OutputLink(index: index, name: name, endpoint: endpoint)
        outputs.append(output)
        core.addOutput(index)
        connect(output)
        return .success(())
    }

    /// On `loop`: closes the RTMP output `index` cleanly (what is encoded is flushed first) and keeps its counters.
    func removeOutput(index: Int) -> Result<Void, OutputEditRefusal> {
        loop.preconditionInEventLoop()
        guard !ending else { return .failure(OutputEditRefusal("the job is ending")) }
        guard outputs.count + fileOutputs.count + srtOutputs.count > 1 else {
            return .failure(OutputEditRefusal("output \(index) is the job's only output"))
        }
        if let position = srtOutputs.firstIndex(where: { $0.index == index }) {
            removeSRTOutput(at: position)
            return .success(())
        }
        guard let position = outputs.firstIndex(where: { $0.index == index }) else {
            return .failure(OutputEditRefusal("output \(index) is not an RTMP or SRT output of this job"))
        }
        let output = outputs.remove(at: position)
        core.removeOutput(index)
        // Events of this connection are ignored from now on (`outputEvent` looks the index up in `outputs`).
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
        removedOutputs.append(output)
        return .success(())
    }

    /// On `loop`: what the SRT output has made goes out, and its connection closes once the receiver has it (as at the
    /// job's end); its events are ignored from now on, and its counters stay in the job's progress.
    private func removeSRTOutput(at position: Int) {
        let output = srtOutputs[position]
        if output.ready {
            output.pending += output.edge.flush()
            flushSRTOutputs()
        }
        srtOutputs.remove(at: position)
        core.removeOutput(output.index)
        output.generation += 1
        output.retry?.cancel()
        _ = closeDrained(output)
        output.listener?.close()
        output.listener = nil
        output.ready = false
        output.pending.removeAll()
        output.progress.status = .removed
        removedSRTOutputs.append(output)
    }
}
