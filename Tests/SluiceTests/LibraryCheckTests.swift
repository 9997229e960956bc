import Foundation
import Testing
@testable import Sluice

/// The worker's start checks, in a child process (`sluice libraries`), that libav and libsrt can be loaded: the worker
/// itself maps neither until a job needs them.
@Suite("Library check at the worker's start")
struct LibraryCheckTests {
    @Test("the child's lines: ok, or why not, for each library; a missing one is a problem naming what fails without it")
    func parsing() {
        #expect(LibraryCheck.lines(libav: nil, libsrt: nil) == "libav: ok\nlibsrt: ok\n")
        let failed = LibraryCheck.lines(libav: "libavcodec.so.59: cannot open shared object file: No such file or directory", libsrt: nil)
        #expect(failed == "libav: libavcodec.so.59: cannot open shared object file: No such file or directory\nlibsrt: ok\n")
        #expect(LibraryCheck.problems(fromOutput: "libav: ok\nlibsrt: ok\n").isEmpty)
        #expect(LibraryCheck.problems(fromOutput: failed) == [
            "libav cannot be loaded (file jobs, encodes, renditions and slates fail): libavcodec.so.59: cannot open shared object file: No such file or directory",
        ])
        #expect(LibraryCheck.problems(fromOutput: "libav: ok\nlibsrt: libsrt-gnutls.so.1.5: cannot open shared object file\n")
                == ["libsrt cannot be loaded (SRT inputs and outputs fail): libsrt-gnutls.so.1.5: cannot open shared object file"])
        // A child that said nothing (it crashed) is a problem too, not a pass.
        #expect(LibraryCheck.problems(fromOutput: "").count == 2)
        // A reason over several lines stays on one.
        #expect(LibraryCheck.lines(libav: "a\nb", libsrt: nil) == "libav: a b\nlibsrt: ok\n")
    }

    @Test("sluice libraries on this machine: both load; run as the worker runs it, no problem")
    func thisMachine() throws {
        let output = try Command.run(Command.sluiceBinary, ["libraries"]).text
        #expect(output == "libav: ok\nlibsrt: ok\n", "\(output)")
        #expect(LibraryCheck.problems(executable: Command.sluiceBinary).isEmpty)
        // A binary that is not there is said, not taken for a pass.
        let missing = LibraryCheck.problems(executable: "/nonexistent/sluice")
        #expect(missing.count == 1 && missing[0].contains("could not be checked"), "\(missing)")
    }
}
