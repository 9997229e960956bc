import Foundation

/// How this test run was built, where a judgement of wall-clock time has to know it.
public enum TestBuild {
    /// True in the ThreadSanitizer runs (`scripts/test` sets SLUICE_TEST_TSAN=1): a build 5-15x slower, where a
    /// bound on how long something takes judges the sanitizer, not the code.
    public static let isThreadSanitized = ProcessInfo.processInfo.environment["SLUICE_TEST_TSAN"] == "1"
}
