// libFuzzer target: the job document decoder and validator (DESIGN §3), as the worker meets bytes off the queue.
import Foundation
import JobDocument

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let document = Data(bytes: data, count: size)
    guard let spec = try? JobSpec.parse(document) else { return 0 }
    _ = (spec.redactedDocument, spec.outputs.count)
    return 0
}
