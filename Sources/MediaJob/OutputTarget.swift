import Foundation

/// Where an output's bytes go. Files are written under a temporary name and renamed on success (see
/// `OutputFile`), so a failed job leaves nothing that looks complete; RTMP publishes (the relay engine's) cannot
/// be taken back.
public enum OutputTarget: Sendable, Equatable {
    case file(path: String)
    case network(url: String)
}
