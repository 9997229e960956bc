// libFuzzer target: the job document decoder and validator (docs/ARCHITECTURE.md §8), as the worker meets bytes off the queue.
import Foundation
import JobDocument

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let document = Data(bytes: data, count: size)
    guard let spec = try? JobSpec.parse(document) else { return 0 }
    _ = (spec.redactedDocument, spec.outputs.count)
    // Per-output renditions: each distinct treatment once, never more than the outputs that could use it, and every
    // output that carries video finds its own among them.
    let renditions = spec.videoRenditions
    precondition(renditions.count <= spec.outputs.count, "more video renditions than outputs")
    for output in spec.outputs where output.format != .adts && spec.video(of: output).mode != .drop {
        precondition(renditions.contains(spec.video(of: output)), "an output's video treatment is missing from the renditions")
    }
    _ = spec.encodesAudio
    return 0
}
