// OpenSSL 3.0 (DTLS 1.2 with use_srtp, RFC 5764) and libsrtp 2.5 (SRTP, RFC 3711) for WebRTC, opened on first use
// by webrtc_crypto_loader.c. Swift calls the real functions OpenSSL and libsrtp export; what it cannot reach (the
// macros over SSL_ctrl, the verify and timer callbacks, the datagram BIO, libsrtp's policy struct) is in
// dtls_helpers.c and srtp_helpers.c behind the `sluice_` names below.
#ifndef SLUICE_CWEBRTCCRYPTO_SHIM_H
#define SLUICE_CWEBRTCCRYPTO_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/srtp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <srtp2/srtp.h>

/// Opens libcrypto, libssl and libsrtp2 once per process and runs srtp_init. Returns NULL once they are loaded,
/// otherwise why not: dlerror's text (it names the library), or the function a library lacks. Thread-safe.
const char *sluice_webrtc_crypto_load(void);

/// SHA-256 digest length: the `a=fingerprint:sha-256` of RFC 8122 §5.
#define SLUICE_DTLS_FINGERPRINT_LENGTH 32

// MARK: Certificate

/// A fresh ECDSA P-256 key and a self-signed X.509 v3 certificate for it, signed with SHA-256, valid from a day ago
/// for `validity_seconds`, subject and issuer CN=`common_name`. Returns 1, or 0 with OpenSSL's error queue set.
int sluice_dtls_certificate_new(const char *common_name, long validity_seconds, EVP_PKEY **key, X509 **certificate);

/// The SHA-256 digest of `certificate`'s DER encoding into `digest` (32 bytes). Returns 1, or 0.
int sluice_dtls_certificate_fingerprint(const X509 *certificate, unsigned char *digest);

/// A DTLS 1.2 context for `certificate` and `key`: use_srtp offering `srtp_profiles` (OpenSSL's colon-separated
/// names), a certificate required of the peer and checked only against the fingerprint each SSL expects. NULL with
/// OpenSSL's error queue set on failure.
SSL_CTX *sluice_dtls_context_new(X509 *certificate, EVP_PKEY *key, const char *srtp_profiles);

// MARK: One DTLS association

/// An SSL for one peer: reads from a memory BIO the caller writes each received datagram to (SSL_get_rbio), writes
/// to a BIO that keeps each outgoing datagram whole (at most `mtu` bytes each, taken with
/// sluice_dtls_peek_datagram/sluice_dtls_pop_datagram), accepts the peer only if its certificate's SHA-256 is
/// `expected_fingerprint` (32 bytes), first retransmits after `initial_timeout_us`. Free with sluice_dtls_free.
SSL *sluice_dtls_new(SSL_CTX *context, int is_server, const unsigned char *expected_fingerprint, unsigned int mtu,
                     unsigned int initial_timeout_us);

/// Frees `ssl`, its BIOs and the state sluice_dtls_new gave it.
void sluice_dtls_free(SSL *ssl);

/// The oldest outgoing datagram not yet taken (its length in `length`), or NULL when there is none.
const unsigned char *sluice_dtls_peek_datagram(SSL *ssl, size_t *length);

/// Drops the datagram sluice_dtls_peek_datagram returned.
void sluice_dtls_pop_datagram(SSL *ssl);

/// The digest of the certificate the peer presented, into `digest` (32 bytes). Returns 1, or 0 before it presented one.
int sluice_dtls_peer_fingerprint(SSL *ssl, unsigned char *digest);

/// 1 when the handshake was refused because the peer's certificate did not have the expected fingerprint.
int sluice_dtls_fingerprint_mismatched(SSL *ssl);

/// Time left until the next retransmission in microseconds (DTLSv1_get_timeout), or -1 when no timer runs.
long long sluice_dtls_timeout_microseconds(SSL *ssl);

/// Retransmits the last flight if its timer expired (DTLSv1_handle_timeout): 1 if it did, 0 if not due, -1 on error.
int sluice_dtls_handle_timeout(SSL *ssl);

// MARK: SRTP

/// An SRTP session for one direction (RFC 3711): `profile` is the use_srtp profile id of RFC 5764 §4.1.2 (1 for
/// SRTP_AES128_CM_HMAC_SHA1_80, 7 for SRTP_AEAD_AES_128_GCM), `key_and_salt` the master key followed by the master
/// salt, `outbound` 1 for protect (repeated sequence numbers allowed: retransmissions) and 0 for unprotect, with
/// a replay window of `window_size` packets.
srtp_err_status_t sluice_srtp_create(srtp_t *session, int profile, const unsigned char *key_and_salt, size_t length,
                                     int outbound, unsigned long window_size);

#endif
