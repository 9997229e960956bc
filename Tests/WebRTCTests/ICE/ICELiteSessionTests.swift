import Testing
import WebRTC

/// Checks as a browser (a full, controlling agent) sends them to this worker.
struct BrowserCheck {
    var username = "srvU:brwU"
    var password = "server-password-0123456789"
    var useCandidate = false
    var role: STUNAttribute? = .iceControlling(tieBreaker: 0x1234_5678_9ABC_DEF0)
    var priority: UInt32? = 1_853_824_767
    var extra: [STUNAttribute] = []
    var transactionID = STUNTransactionID(bytes: Array(1...12))!

    func request(type: STUNMessageType = .bindingRequest, integrity: Bool = true, fingerprint: Bool = true) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username)] + extra
        if let priority { attributes.append(.priority(priority)) }
        if let role { attributes.append(role) }
        if useCandidate { attributes.append(.useCandidate) }
        let message = STUNMessage(type: type, transactionID: transactionID, attributes: attributes)
        guard integrity else {
            var bytes = message.serialized()
            if fingerprint { STUNFingerprint.append(to: &bytes) }
            return bytes
        }
        return message.serialized(integrityKey: Array(password.utf8), fingerprint: fingerprint)
    }
}

@Suite("ICE-lite responder")
struct ICELiteSessionTests {
    static let local = ICECredentials(ufrag: "srvU", pwd: "server-password-0123456789")
    static let remote = ICECredentials(ufrag: "brwU", pwd: "browser-password-9876543210")
    let key = Array(local.pwd.utf8)
    let browserAddress = TransportAddress.ipv4(192, 168, 1, 20, port: 54321)
    let otherAddress = TransportAddress.ipv4(10, 0, 0, 7, port: 40000)

    func session(_ nomination: ICELiteSession.Nomination = .useCandidate) -> ICELiteSession {
        ICELiteSession(local: Self.local, remote: Self.remote, nomination: nomination)
    }

    /// The response parsed, after checking its transaction ID, FINGERPRINT and (unless a 401) MESSAGE-INTEGRITY with our pwd.
    func response(_ outcome: ICELiteOutcome, to browser: BrowserCheck = BrowserCheck()) throws -> STUNMessage {
        let bytes = try #require(outcome.response)
        let message = try STUNMessage(parsing: bytes)
        #expect(message.transactionID == browser.transactionID)
        #expect(STUNFingerprint.verify(bytes) == .valid)
        if message.errorCode?.code == 401 {
            #expect(STUNMessageIntegrity.verify(bytes, key: key) == .absent)
        } else {
            #expect(STUNMessageIntegrity.verify(bytes, key: key) == .valid)
        }
        return message
    }

    @Test func answersAValidCheckWithItsSourceAddress() throws {
        var ice = session()
        let outcome = ice.receive(BrowserCheck().request(), from: browserAddress, now: 0)
        #expect(outcome.rejection == nil && outcome.nominated == nil)
        let success = try response(outcome)
        #expect(success.type == .bindingSuccess)
        #expect(success.xorMappedAddress == browserAddress)
        #expect(ice.selectedAddress == nil && ice.lastConsent == nil)
    }

    @Test func answersIPv6Sources() throws {
        var ice = session()
        let source = TransportAddress(address: [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 10) + [0xAB, 0xCD], port: 61000)!
        var browser = BrowserCheck()
        browser.useCandidate = true
        let outcome = ice.receive(browser.request(), from: source, now: 0)
        #expect(outcome.nominated == source)
        #expect(try response(outcome).xorMappedAddress == source)
    }

    @Test func useCandidateNominatesAndALaterNominationMovesTheSelection() throws {
        var ice = session()
        var browser = BrowserCheck()
        browser.useCandidate = true
        #expect(ice.receive(browser.request(), from: browserAddress, now: 1).nominated == browserAddress)
        #expect(ice.selectedAddress == browserAddress && ice.lastConsent == 1)
        // The same pair nominated again is no news.
        #expect(ice.receive(browser.request(), from: browserAddress, now: 2).nominated == nil)
        // A check without USE-CANDIDATE from elsewhere is answered and selects nothing.
        let unnominated = ice.receive(BrowserCheck().request(), from: otherAddress, now: 3)
        #expect(unnominated.nominated == nil && unnominated.response != nil)
        #expect(ice.selectedAddress == browserAddress && ice.lastConsent == 2)
        // The controlling peer nominating another pair moves media there.
        #expect(ice.receive(browser.request(), from: otherAddress, now: 4).nominated == otherAddress)
        #expect(ice.selectedAddress == otherAddress && ice.lastConsent == 4)
    }

    @Test func latestValidRequestSelectsWithoutUseCandidate() {
        var ice = session(.latestValidRequest)
        #expect(ice.receive(BrowserCheck().request(), from: browserAddress, now: 0).nominated == browserAddress)
        #expect(ice.receive(BrowserCheck().request(), from: browserAddress, now: 1).nominated == nil)
        #expect(ice.receive(BrowserCheck().request(), from: otherAddress, now: 2).nominated == otherAddress)
    }

    @Test func aWrongUsernameGets401() throws {
        var ice = session()
        var browser = BrowserCheck()
        browser.username = "srvU:someoneElse"
        browser.useCandidate = true
        let outcome = ice.receive(browser.request(), from: browserAddress, now: 0)
        #expect(outcome.rejection == .wrongUsername("srvU:someoneElse") && outcome.nominated == nil)
        let error = try response(outcome)
        #expect(error.type == .bindingError && error.errorCode == .unauthorized)
        #expect(ice.selectedAddress == nil)
    }

    @Test func aWrongPasswordGets401() throws {
        var ice = session()
        var browser = BrowserCheck()
        // Keyed with the peer's own password instead of ours: the classic mistake.
        browser.password = Self.remote.pwd
        browser.useCandidate = true
        let outcome = ice.receive(browser.request(), from: browserAddress, now: 0)
        #expect(outcome.rejection == .badIntegrity && outcome.nominated == nil)
        #expect(try response(outcome).errorCode?.code == 401)
    }

    @Test func aRequestWithoutIntegrityIsDropped() {
        var ice = session()
        let outcome = ice.receive(BrowserCheck().request(integrity: false), from: browserAddress, now: 0)
        #expect(outcome == ICELiteOutcome(rejection: .missingCredentials))
    }

    @Test func aBadFingerprintIsDropped() {
        var ice = session()
        var bytes = BrowserCheck().request()
        bytes[bytes.count - 1] ^= 0xFF
        #expect(ice.receive(bytes, from: browserAddress, now: 0) == ICELiteOutcome(rejection: .badFingerprint))
    }

    @Test func aControlledPeerGets487AndNominatesNothing() throws {
        var ice = session()
        var browser = BrowserCheck()
        browser.role = .iceControlled(tieBreaker: 1)
        browser.useCandidate = true
        let outcome = ice.receive(browser.request(), from: browserAddress, now: 0)
        #expect(outcome.rejection == .roleConflict && outcome.nominated == nil)
        #expect(try response(outcome).errorCode == .roleConflict)
        #expect(ice.selectedAddress == nil)
    }

    @Test func aPeerWithoutARoleIsAnswered() throws {
        var ice = session()
        var browser = BrowserCheck()
        browser.role = nil
        #expect(try response(ice.receive(browser.request(), from: browserAddress, now: 0)).type == .bindingSuccess)
    }

    @Test func badRequestsGet400Or420() throws {
        var ice = session()
        var noPriority = BrowserCheck()
        noPriority.priority = nil
        let missing = ice.receive(noPriority.request(), from: browserAddress, now: 0)
        #expect(missing.rejection == .missingPriority)
        #expect(try response(missing).errorCode == .badRequest)

        var bothRoles = BrowserCheck()
        bothRoles.extra = [.iceControlled(tieBreaker: 9)]
        let contradictory = ice.receive(bothRoles.request(), from: browserAddress, now: 0)
        #expect(contradictory.rejection == .contradictoryRoles)
        #expect(try response(contradictory).errorCode == .badRequest)

        var unknown = BrowserCheck()
        unknown.extra = [.other(type: 0x0030, value: [1, 2, 3, 4]), .other(type: 0xC057, value: [0, 1, 0, 0])]
        let outcome = ice.receive(unknown.request(), from: browserAddress, now: 0)
        #expect(outcome.rejection == .unknownAttributes([0x0030]))
        let error = try response(outcome)
        #expect(error.errorCode == .unknownAttribute && error.attributes.contains(.unknownAttributes([0x0030])))
    }

    @Test func responsesAndOtherMethodsAreDropped() {
        var ice = session()
        #expect(ice.receive(BrowserCheck().request(type: .bindingSuccess), from: browserAddress, now: 0).rejection == .unexpectedMessage(.bindingSuccess))
        let allocate = STUNMessageType(method: STUNMethod(rawValue: 0x003)!, messageClass: .request)
        #expect(ice.receive(BrowserCheck().request(type: allocate), from: browserAddress, now: 0) == ICELiteOutcome(rejection: .unexpectedMessage(allocate)))
        #expect(ice.receive([0, 1, 0], from: browserAddress, now: 0).rejection == .malformed(.truncated(structure: "STUN header", needed: 20, available: 3)))
    }

    @Test func consentExpiresThirtySecondsAfterTheLastValidRequestFromTheSelectedAddress() {
        var ice = session()
        #expect(!ice.consentExpired(now: 1000))
        var nominating = BrowserCheck()
        nominating.useCandidate = true
        _ = ice.receive(nominating.request(), from: browserAddress, now: 100)
        #expect(!ice.consentExpired(now: 129.9))
        #expect(ice.consentExpired(now: 130))
        // A consent check (no USE-CANDIDATE) refreshes it.
        #expect(ice.receive(BrowserCheck().request(), from: browserAddress, now: 120).response != nil)
        #expect(!ice.consentExpired(now: 149.9) && ice.consentExpired(now: 150))
        // Checks from another address, or failing ones from the selected one, do not.
        _ = ice.receive(BrowserCheck().request(), from: otherAddress, now: 140)
        var wrong = BrowserCheck()
        wrong.password = "nope"
        _ = ice.receive(wrong.request(), from: browserAddress, now: 140)
        #expect(ice.consentExpired(now: 150))
    }

    @Test func bindingIndicationsRefreshConsentWithoutAnAnswer() {
        var ice = session()
        var nominating = BrowserCheck()
        nominating.useCandidate = true
        _ = ice.receive(nominating.request(), from: browserAddress, now: 0)
        let keepalive = STUNMessage(type: .bindingIndication, transactionID: STUNTransactionID(bytes: Array(20...31))!).serialized()
        #expect(ice.receive(keepalive, from: otherAddress, now: 25) == ICELiteOutcome(rejection: .indicationFromUnselectedAddress))
        #expect(ice.lastConsent == 0)
        #expect(ice.receive(keepalive, from: browserAddress, now: 25) == ICELiteOutcome())
        #expect(ice.lastConsent == 25 && !ice.consentExpired(now: 54.9) && ice.consentExpired(now: 55))
    }
}

@Suite("ICE USERNAME routing")
struct ICEUsernameTests {
    @Test func findsOurFragmentWithoutVerifyingAnything() {
        #expect(ICEUsername.receiverFragment(ofBindingRequest: STUNTestVectors.request) == "evtj")
        #expect(ICEUsername.receiverFragment(ofBindingRequest: BrowserCheck().request()) == "srvU")
        var wrongPassword = BrowserCheck()
        wrongPassword.password = "anything"
        #expect(ICEUsername.receiverFragment(ofBindingRequest: wrongPassword.request()) == "srvU")
    }

    @Test func findsNothingWhereThereIsNothing() {
        var noColon = BrowserCheck()
        noColon.username = "srvU"
        #expect(ICEUsername.receiverFragment(ofBindingRequest: noColon.request()) == nil)
        #expect(ICEUsername.receiverFragment(ofBindingRequest: STUNTestVectors.ipv4Response) == nil)
        #expect(ICEUsername.receiverFragment(ofBindingRequest: Array(STUNTestVectors.request.prefix(40))) == nil)
        #expect(ICEUsername.receiverFragment(ofBindingRequest: []) == nil)
    }

    @Test func splitsAtTheFirstColon() {
        #expect(ICEUsername(parsing: "a:b:c") == ICEUsername(receiverFragment: "a", senderFragment: "b:c"))
        #expect(ICEUsername(parsing: "ab") == nil)
        #expect(ICEUsername(receiverFragment: "x", senderFragment: "y").description == "x:y")
    }
}
