import Foundation
import Testing
@testable import JobDocument

@Suite("Job spec: reconnect and listen")
struct ReconnectSpecTests {
    static func parse(_ extra: String, input: String = #""in.mp4""#) throws(JobSpecError) -> JobSpec {
        try JobSpec.parse(Data(#"{"id": "r", "input": \#(input), "outputs": ["rtmp://h/live/k"]\#(extra)}"#.utf8))
    }

    @Test("defaults: 10 attempts from 0.5 s up to 10 s")
    func defaults() throws {
        let spec = try Self.parse("")
        #expect(spec.reconnect.attempts == 10 && spec.reconnect.initialDelaySeconds == 0.5 && spec.reconnect.maxDelaySeconds == 10)
    }

    @Test("given values are taken")
    func given() throws {
        let spec = try Self.parse(#", "reconnect": {"attempts": 3, "initial_delay_s": 0.1, "max_delay_s": 2}"#)
        #expect(spec.reconnect.attempts == 3 && spec.reconnect.initialDelaySeconds == 0.1 && spec.reconnect.maxDelaySeconds == 2)
    }

    @Test("bad values are named by key path", arguments: [
        (#"{"attempts": -1}"#, "reconnect.attempts"),
        (#"{"initial_delay_s": 0}"#, "reconnect.initial_delay_s"),
        (#"{"initial_delay_s": 5, "max_delay_s": 1}"#, "reconnect.max_delay_s"),
        (#"{"tries": 3}"#, "reconnect.tries"),
        (#"3"#, "reconnect"),
    ])
    func invalid(_ value: String, _ path: String) {
        #expect(throws: JobSpecError.self) { try Self.parse(#", "reconnect": \#(value)"#) }
        do {
            _ = try Self.parse(#", "reconnect": \#(value)"#)
        } catch {
            #expect(error.problems.map(\.path) == [path], "\(error)")
        }
    }

    @Test("a listening input needs an application and a stream key in its URL")
    func listenURL() throws {
        #expect(try Self.parse("", input: #"{"url": "rtmp://0.0.0.0:1935/live/key", "listen": true}"#).input.listen)
        for url in ["rtmp://0.0.0.0:1935/live", "rtmp://0.0.0.0:1935/live/a/b", "rtmp://0.0.0.0:1935/live/k?x=1"] {
            do {
                _ = try Self.parse("", input: #"{"url": "\#(url)", "listen": true}"#)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.problems.map(\.path) == ["input.url"], "\(error)")
            }
        }
    }
}
