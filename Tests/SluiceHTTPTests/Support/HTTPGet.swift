import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP response as a test reads it.
struct HTTPReply {
    var status: Int
    var contentType: String
    var body: String
}

/// GETs a URL with a fresh, cache-less session.
func httpGet(_ url: String) async throws -> HTTPReply {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(from: try #require(URL(string: url)))
    let http = try #require(response as? HTTPURLResponse)
    return HTTPReply(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type") ?? "",
                     body: String(decoding: data, as: UTF8.self))
}

/// A short-lived program run on a thread of its own (never on the cooperative pool), with its combined output.
/// With `keepStandardError` false, only standard output is returned (Chromium chatters about D-Bus on stderr).
func runProgram(_ executable: String, _ arguments: [String], keepStandardError: Bool = true) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = keepStandardError ? pipe : FileHandle.nullDevice
                process.standardInput = FileHandle.nullDevice
                try process.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, output)
            })
        }
        thread.start()
    }
}
