import ArgumentParser
import MediaEngine
import Sluice
import SRTTransport

/// `sluice libraries`: loads libav and libsrt in this process and prints one line each, `NAME: ok` or `NAME: why not`.
/// The worker runs it as a child at its start (`LibraryCheck`): its own process maps neither until a job needs them.
struct LibrariesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "libraries",
        abstract: "Load the codec libraries (libav) and libsrt and say whether they load.",
        shouldDisplay: false)

    func run() throws {
        print(LibraryCheck.lines(libav: CodecLibraries.load(), libsrt: SRTLibrary.load()), terminator: "")
    }
}
