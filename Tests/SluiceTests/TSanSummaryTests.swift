import Foundation
import Testing

/// scripts/lib/tsan-summary.py, which shows each ThreadSanitizer report of a failed `scripts/test --tsan` run in its
/// summary: both stacks and where the threads began, cut to the tree's own frames, names demangled.
@Suite("ThreadSanitizer summary")
struct TSanSummaryTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/lib/tsan-summary.py").standardizedFileURL.path

    /// What a test log holds around a report (ThreadSanitizer's own output, the tree at /ci/cache/src): the race of two
    /// threads in one `withLock` of a contended `Synchronization.Mutex`, reported for two addresses.
    static let log = """
        ◇ Test run started.
        ==================
        REPORT
        ==================
        == ThreadSanitizer's output in process 3687:
        ==================
        SECOND
        ==================
        ThreadSanitizer: reported 2 warnings
        ✔ Test run with 1 test passed after 1.0 seconds.
        """

    @Test("a report keeps the access, the previous one, the memory and the threads' starts, each cut to the tree's frames")
    func trimmedReport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tsan-summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("tsan-X.log")
        try TSanSummaryTests.log.replacingOccurrences(of: "REPORT", with: TSanSummaryTests.report)
            .replacingOccurrences(of: "SECOND", with: TSanSummaryTests.second)
            .write(to: log, atomically: true, encoding: .utf8)
        let summary = try Command.run("python3", [TSanSummaryTests.script, log.path, "/ci/cache/src"]).text
        let lines = summary.split(separator: "\n").map(String.init)

        // One race, reported twice: printed once, with its count.
        #expect(lines.filter { $0.hasPrefix("WARNING: ThreadSanitizer: Swift access race") }.count == 1, "\(summary)")
        #expect(lines.contains("  (reported 2 times)"), "\(summary)")
        // Both stacks, demangled, with paths in the tree; the thread's own Foundation frame cut to one line.
        let access = try #require(lines.firstIndex { $0.hasPrefix("  Modifying access of Swift variable") }, "\(summary)")
        let previous = try #require(lines.firstIndex { $0.hasPrefix("  Previous modifying access of Swift variable") }, "\(summary)")
        #expect(Array(lines[(access + 1)...(access + 4)]) == [
            "    #0 closure #1 in Table.bump(_:) Sources/Demo/Table.swift",
            "    #1 Table.bump(_:) Sources/Demo/Table.swift:5:36",
            "    #2 closure #1 in closure #1 in  Sources/Demo/Table.swift:8:72",
            "      …",
        ], "\(summary)")
        #expect(lines[previous + 2] == "    #1 Table.bump(_:) Sources/Demo/Table.swift:5:36", "\(summary)")
        // Where the memory came from and where each thread was created: the runtime's frames by function and module.
        #expect(lines.contains("    #2 main Sources/Demo/Table.swift:7:13"), "\(summary)")
        let thread = try #require(lines.firstIndex { $0.hasPrefix("  Thread T2 'table'") && $0.hasSuffix("created by main thread at:") }, "\(summary)")
        #expect(Array(lines[(thread + 1)...(thread + 3)]) == ["    #0 pthread_create (table)", "    #1 _CFThreadCreate (libFoundation.so)", "      …"],
                "\(summary)")
        #expect(lines.contains { $0.hasPrefix("  Thread T1 'table'") }, "\(summary)")
        #expect(lines.last == "SUMMARY: ThreadSanitizer: Swift access race Sources/Demo/Table.swift in closure #1 in Table.bump(_:)", "\(summary)")
        // Nothing of the machine: no absolute path of the tree or of the runtime's sources, no build ids, no pid.
        #expect(!summary.contains("/ci/cache/src") && !summary.contains("tsan_interceptors") && !summary.contains("BuildId")
                && !summary.contains("pid="), "\(summary)")
    }

    @Test("a log without a report gives nothing")
    func noReport() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tsan-none-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        try "✔ Test run with 3 tests passed after 1.0 seconds.\n".write(to: log, atomically: true, encoding: .utf8)
        #expect(try Command.run("python3", [TSanSummaryTests.script, log.path, "/ci/cache/src"]).text.isEmpty)
    }

    static let report = #"""
WARNING: ThreadSanitizer: Swift access race (pid=3687)
  Modifying access of Swift variable at 0x720800000058 by thread T2:
    #0 $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_ /ci/cache/src/Sources/Demo/Table.swift (table+0xfdff5) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 $s5table5TableC4bumpyySiF /ci/cache/src/Sources/Demo/Table.swift:5:36 (table+0xfe926) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #2 $s5table10Foundation6ThreadCSiXEfU_yyYbcfU_ /ci/cache/src/Sources/Demo/Table.swift:8:72 (table+0xfd2fc) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

  Previous modifying access of Swift variable at 0x720800000058 by thread T1:
    #0 $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_ /ci/cache/src/Sources/Demo/Table.swift (table+0xfdff5) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 $s5table5TableC4bumpyySiF /ci/cache/src/Sources/Demo/Table.swift:5:36 (table+0xfe926) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #2 $s5table10Foundation6ThreadCSiXEfU_yyYbcfU_ /ci/cache/src/Sources/Demo/Table.swift:8:72 (table+0xfd2fc) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

  Location is heap block of size 32 at 0x720800000040 allocated by main thread:
    #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (table+0x7a770) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #2 main /ci/cache/src/Sources/Demo/Table.swift:7:13 (table+0xfe694) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)

  Thread T2 'table' (tid=3697, running) created by main thread at:
    #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (table+0x7c35a) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 _CFThreadCreate <null> (libFoundation.so+0x3d79ca) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
    #2 $sSTsE7forEachyyy7ElementQzKXEKF <null> (libswiftCore.so+0x34e0ef) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #3 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

  Thread T1 'table' (tid=3696, running) created by main thread at:
    #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (table+0x7c35a) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 _CFThreadCreate <null> (libFoundation.so+0x3d79ca) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
    #2 $sSTsE7forEachyyy7ElementQzKXEKF <null> (libswiftCore.so+0x34e0ef) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #3 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

SUMMARY: ThreadSanitizer: Swift access race /ci/cache/src/Sources/Demo/Table.swift in $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_
"""#

    static let second = #"""
WARNING: ThreadSanitizer: Swift access race (pid=3687)
  Modifying access of Swift variable at 0x720800000098 by thread T2:
    #0 $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_ /ci/cache/src/Sources/Demo/Table.swift (table+0xfdff5) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 $s5table5TableC4bumpyySiF /ci/cache/src/Sources/Demo/Table.swift:5:36 (table+0xfe926) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #2 $s5table10Foundation6ThreadCSiXEfU_yyYbcfU_ /ci/cache/src/Sources/Demo/Table.swift:8:72 (table+0xfd2fc) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

  Previous modifying access of Swift variable at 0x720800000098 by thread T1:
    #0 $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_ /ci/cache/src/Sources/Demo/Table.swift (table+0xfdff5) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 $s5table5TableC4bumpyySiF /ci/cache/src/Sources/Demo/Table.swift:5:36 (table+0xfe926) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #2 $s5table10Foundation6ThreadCSiXEfU_yyYbcfU_ /ci/cache/src/Sources/Demo/Table.swift:8:72 (table+0xfd2fc) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

  Location is heap block of size 32 at 0x720800000040 allocated by main thread:
    #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (table+0x7a770) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #2 main /ci/cache/src/Sources/Demo/Table.swift:7:13 (table+0xfe694) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)

  Thread T2 'table' (tid=3697, running) created by main thread at:
    #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (table+0x7c35a) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 _CFThreadCreate <null> (libFoundation.so+0x3d79ca) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
    #2 $sSTsE7forEachyyy7ElementQzKXEKF <null> (libswiftCore.so+0x34e0ef) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #3 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

  Thread T1 'table' (tid=3696, running) created by main thread at:
    #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (table+0x7c35a) (BuildId: 0aedf1991271410ef41597eeb06f42628609db06)
    #1 _CFThreadCreate <null> (libFoundation.so+0x3d79ca) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
    #2 $sSTsE7forEachyyy7ElementQzKXEKF <null> (libswiftCore.so+0x34e0ef) (BuildId: b521f25fdeacf504eca83d97c7308e8fc11be729)
    #3 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

SUMMARY: ThreadSanitizer: Swift access race /ci/cache/src/Sources/Demo/Table.swift in $s5table5TableC4bumpyySiFySDyS2iGzYuYTXEfU_
"""#
}
