// RFC 8445 §2.5 and §7.3 (a lite agent answers checks and never sends them; it is always controlled, §6.1.1),
// §7.3.1.1 (role conflicts), §7.3.1.5 (nomination) and RFC 7675 (consent freshness): one WHIP or WHEP session's ICE,
// as a value that takes datagrams and time and returns datagrams and events. No sockets; the caller's loop owns it.

/// The ICE-lite responder of one session.
///
/// Every datagram classified as STUN from any address goes to `receive(_:from:now:)`; the outcome says what to send
/// back to that address and whether a pair was nominated. `consentExpired(now:)` tells when the selected peer has
/// stopped proving it still wants the media.
public struct ICELiteSession: Sendable {
    /// How a pair becomes the selected one.
    public enum Nomination: Sendable, Equatable {
        /// A valid request carrying USE-CANDIDATE selects its source (RFC 8445 §7.3.1.5); a later nomination from
        /// another address moves the selection there, since the controlling peer decides.
        case useCandidate
        /// Every valid request selects its source, nominated or not: for a controlling peer that never sends
        /// USE-CANDIDATE, the latest address that proved it holds the credentials.
        case latestValidRequest
    }

    /// RFC 7675 §5.1: consent is lost 30 s after the last proof of it.
    public static let consentTimeout: Double = 30

    /// Our credentials (the answer's a=ice-ufrag and a=ice-pwd): checks we receive are keyed with our pwd.
    public let local: ICECredentials
    /// The peer's credentials (the offer's): its ufrag is the second half of USERNAME.
    public let remote: ICECredentials
    public let nomination: Nomination
    /// Where media goes: the address of the nominated pair's remote candidate; nil until a nomination.
    public private(set) var selectedAddress: TransportAddress?
    /// When (on the caller's clock, in seconds) the selected address last sent a valid request or indication.
    public private(set) var lastConsent: Double?

    private let expectedUsername: String
    private let integrityKey: [UInt8]

    /// - Parameters:
    ///   - local: our ufrag and pwd, as our SDP carries them.
    ///   - remote: the peer's ufrag and pwd, from its SDP.
    ///   - nomination: how a pair is selected; `.useCandidate` for browsers.
    public init(local: ICECredentials, remote: ICECredentials, nomination: Nomination = .useCandidate) {
        self.local = local
        self.remote = remote
        self.nomination = nomination
        expectedUsername = ICEUsername(receiverFragment: local.ufrag, senderFragment: remote.ufrag).description
        integrityKey = Array(local.pwd.utf8)
    }

    /// Takes one datagram already classified as STUN.
    /// - Parameters:
    ///   - datagram: the whole datagram.
    ///   - source: the address it came from, where any response goes.
    ///   - now: the time in seconds on a monotonic clock of the caller's choosing (the same one for `consentExpired`).
    /// - Returns: the response to send to `source`, a nomination, or why the datagram was refused.
    public mutating func receive(_ datagram: [UInt8], from source: TransportAddress, now: Double) -> ICELiteOutcome {
        let message: STUNMessage
        do {
            message = try STUNMessage(parsing: datagram)
        } catch let error as STUNError {
            return ICELiteOutcome(rejection: .malformed(error))
        } catch {
            return ICELiteOutcome(rejection: .malformed(.malformed(structure: "STUN message", reason: "\(error)")))
        }
        guard message.type == .bindingRequest || message.type == .bindingIndication else {
            return ICELiteOutcome(rejection: .unexpectedMessage(message.type))
        }
        guard STUNFingerprint.verify(datagram) != .invalid else { return ICELiteOutcome(rejection: .badFingerprint) }
        if message.type == .bindingIndication { return indication(datagram, from: source, now: now) }

        // RFC 5389 §10.1.2: authentication first, so nothing below answers anyone without our password.
        guard let username = message.username, message.hasMessageIntegrity else { return ICELiteOutcome(rejection: .missingCredentials) }
        guard username == expectedUsername else { return unauthorized(message, .wrongUsername(username)) }
        guard STUNMessageIntegrity.verify(datagram, key: integrityKey) == .valid else { return unauthorized(message, .badIntegrity) }

        let unknown = message.unknownComprehensionRequired
        guard unknown.isEmpty else {
            return error(.unknownAttribute, to: message, extra: [.unknownAttributes(unknown)], rejection: .unknownAttributes(unknown))
        }
        guard message.iceControlled == nil || message.iceControlling == nil else { return error(.badRequest, to: message, rejection: .contradictoryRoles) }
        guard message.priority != nil else { return error(.badRequest, to: message, rejection: .missingPriority) }
        // §7.3.1.1 says a controlled agent whose tie-breaker is the smaller answers 487 and stays controlled; a lite agent
        // cannot take the controlling role (§6.1.1), so it always stays and always answers 487.
        guard message.iceControlled == nil else { return error(.roleConflict, to: message, rejection: .roleConflict) }

        var outcome = ICELiteOutcome()
        let nominates = nomination == .latestValidRequest || message.useCandidate
        if nominates && selectedAddress != source {
            selectedAddress = source
            outcome.nominated = source
        }
        if source == selectedAddress { lastConsent = now }
        let success = STUNMessage(type: .bindingSuccess, transactionID: message.transactionID, attributes: [.xorMappedAddress(source)])
        outcome.response = success.serialized(integrityKey: integrityKey)
        return outcome
    }

    /// Whether consent has expired: a pair is selected and its address has proved nothing for `consentTimeout` seconds.
    /// - Parameter now: the time in seconds on the clock `receive` is given.
    public func consentExpired(now: Double) -> Bool {
        guard let lastConsent else { return false }
        return now - lastConsent >= Self.consentTimeout
    }

    /// A Binding indication (a keepalive) refreshes consent when the selected address sends it; it is never answered.
    private mutating func indication(_ datagram: [UInt8], from source: TransportAddress, now: Double) -> ICELiteOutcome {
        guard STUNMessageIntegrity.verify(datagram, key: integrityKey) != .invalid else { return ICELiteOutcome(rejection: .badIntegrity) }
        guard source == selectedAddress else { return ICELiteOutcome(rejection: .indicationFromUnselectedAddress) }
        lastConsent = now
        return ICELiteOutcome()
    }

    /// A 401 carries no MESSAGE-INTEGRITY: the request's credentials are the thing that failed (RFC 5389 §10.1.2).
    private func unauthorized(_ request: STUNMessage, _ rejection: ICERejection) -> ICELiteOutcome {
        var response = STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(.unauthorized)]).serialized()
        STUNFingerprint.append(to: &response)
        return ICELiteOutcome(response: response, rejection: rejection)
    }

    /// An error response to an authenticated request, signed with our password.
    private func error(_ code: STUNErrorCode, to request: STUNMessage, extra: [STUNAttribute] = [], rejection: ICERejection) -> ICELiteOutcome {
        let response = STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(code)] + extra)
        return ICELiteOutcome(response: response.serialized(integrityKey: integrityKey), rejection: rejection)
    }
}
