// Outputs on the fly (docs/ARCHITECTURE.md §4): an RTMP output added to, or removed from, a running relay session. An
// added output is a late joiner (it starts at the kept group of pictures, or the next keyframe, with the sequence
// headers); a removed one is flushed and closed politely. The other outputs are not touched: no reconnect, no gap.
import Foundation
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
    /// Every output index the session has handed out: RTMP outputs, files and outputs removed since the start
    /// (progress snapshots report them all, in index order, so indexes never move).
    var outputSlotCount: Int { outputs.count + fileOutputs.count + removedOutputs.count }

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
        guard let position = outputs.firstIndex(where: { $0.index == index }) else {
            return .failure(OutputEditRefusal("output \(index) is not an RTMP output of this job"))
        }
        guard outputs.count + fileOutputs.count > 1 else {
            return .failure(OutputEditRefusal("output \(index) is the job's only output"))
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
}
