// What Swift cannot do with OpenSSL itself: the macros over SSL_ctrl (their expansion written out here), the
// verify and timer callbacks, and a write BIO that keeps datagram boundaries (a memory BIO would run a flight's
// datagrams together). Every OpenSSL call here goes through the forwarders of webrtc_crypto_loader.c.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "shim.h"

/// What one SSL carries besides OpenSSL's own state (its ex_data slot 0, the one SSL_set_app_data uses).
struct sluice_dtls_state {
    unsigned char expected[SLUICE_DTLS_FINGERPRINT_LENGTH];
    unsigned char presented[SLUICE_DTLS_FINGERPRINT_LENGTH];
    int presented_known;
    int mismatched;
    unsigned int initial_timeout_us;
    size_t mtu;
    /// Outgoing datagrams back to back; `lengths[i]` is the i-th one's length.
    unsigned char *bytes;
    size_t used, capacity;
    size_t *lengths;
    size_t count, lengths_capacity;
    /// Whether the last datagram still takes records (OpenSSL fills one up to the MTU, then flushes).
    int open;
};

// MARK: Certificate

int sluice_dtls_certificate_new(const char *common_name, long validity_seconds, EVP_PKEY **key, X509 **certificate) {
    *key = NULL;
    *certificate = NULL;
    EVP_PKEY_CTX *generator = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (generator == NULL) return 0;
    int generated = EVP_PKEY_keygen_init(generator) == 1
        && EVP_PKEY_CTX_set_ec_paramgen_curve_nid(generator, NID_X9_62_prime256v1) == 1
        && EVP_PKEY_keygen(generator, key) == 1;
    EVP_PKEY_CTX_free(generator);
    if (!generated) return 0;

    X509 *made = X509_new();
    unsigned char serial[8];
    // A random positive 63-bit serial: RFC 5280 §4.1.2.2 wants it unique per issuer, and every certificate is its own issuer.
    int built = made != NULL && RAND_bytes(serial, sizeof serial) == 1;
    int64_t serial_value = 0;
    for (size_t index = 0; built && index < sizeof serial; index++) serial_value = (serial_value << 8) | serial[index];
    X509_NAME *name = built ? X509_get_subject_name(made) : NULL;
    built = built
        && X509_set_version(made, X509_VERSION_3) == 1
        && ASN1_INTEGER_set_int64(X509_get_serialNumber(made), serial_value & INT64_MAX) == 1
        // A day early: a peer whose clock runs behind still finds the certificate valid.
        && X509_gmtime_adj(X509_getm_notBefore(made), -86400) != NULL
        && X509_gmtime_adj(X509_getm_notAfter(made), validity_seconds) != NULL
        && name != NULL
        && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0) == 1
        && X509_set_issuer_name(made, name) == 1
        && X509_set_pubkey(made, *key) == 1
        && X509_sign(made, *key, EVP_sha256()) > 0;
    if (!built) {
        X509_free(made);
        EVP_PKEY_free(*key);
        *key = NULL;
        return 0;
    }
    *certificate = made;
    return 1;
}

int sluice_dtls_certificate_fingerprint(const X509 *certificate, unsigned char *digest) {
    unsigned int length = 0;
    return X509_digest(certificate, EVP_sha256(), digest, &length) == 1 && length == SLUICE_DTLS_FINGERPRINT_LENGTH;
}

// MARK: Context

/// Accepts the peer's certificate chain only when its leaf has the SHA-256 the SDP announced (RFC 8122 §5): a
/// WebRTC certificate is self-signed, so the fingerprint is the whole check.
static int sluice_dtls_verify(int preverified, X509_STORE_CTX *store) {
    (void)preverified;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    struct sluice_dtls_state *state = ssl != NULL ? SSL_get_ex_data(ssl, 0) : NULL;
    if (state == NULL) return 0;
    // Only the leaf is named by the fingerprint; anything above it is the peer's business.
    if (X509_STORE_CTX_get_error_depth(store) != 0) return 1;
    X509 *leaf = X509_STORE_CTX_get_current_cert(store);
    if (leaf == NULL || !sluice_dtls_certificate_fingerprint(leaf, state->presented)) return 0;
    state->presented_known = 1;
    if (CRYPTO_memcmp(state->presented, state->expected, SLUICE_DTLS_FINGERPRINT_LENGTH) != 0) {
        state->mismatched = 1;
        X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
        return 0;
    }
    return 1;
}

SSL_CTX *sluice_dtls_context_new(X509 *certificate, EVP_PKEY *key, const char *srtp_profiles) {
    SSL_CTX *context = SSL_CTX_new(DTLS_method());
    if (context == NULL) return NULL;
    int configured = SSL_CTX_use_certificate(context, certificate) == 1
        && SSL_CTX_use_PrivateKey(context, key) == 1
        && SSL_CTX_check_private_key(context) == 1
        // SSL_CTX_set_min_proto_version: WebRTC requires DTLS 1.2 (RFC 8827 §6.5).
        && SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, DTLS1_2_VERSION, NULL) == 1
        // Returns 0 on success, unlike its neighbours.
        && SSL_CTX_set_tlsext_use_srtp(context, srtp_profiles) == 0;
    if (!configured) {
        SSL_CTX_free(context);
        return NULL;
    }
    // Both sides present a certificate (RFC 5763 §5): a client without one is refused.
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, sluice_dtls_verify);
    // No session tickets or resumption: every association is a fresh handshake with fresh SRTP keys.
    SSL_CTX_set_options(context, SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET);
    // SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF)
    SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, SSL_SESS_CACHE_OFF, NULL);
    return context;
}

// MARK: The datagram BIO

/// Appends one record: to the open datagram while it fits in the MTU, else as a new datagram.
static int sluice_dtls_outbox_write(BIO *bio, const char *data, int length) {
    struct sluice_dtls_state *state = BIO_get_data(bio);
    if (state == NULL || length < 0) return -1;
    size_t size = (size_t)length;
    int fits = state->open && state->count > 0 && state->lengths[state->count - 1] + size <= state->mtu;
    if (!fits) {
        if (state->count == state->lengths_capacity) {
            size_t grown = state->lengths_capacity == 0 ? 8 : state->lengths_capacity * 2;
            size_t *lengths = realloc(state->lengths, grown * sizeof *lengths);
            if (lengths == NULL) return -1;
            state->lengths = lengths;
            state->lengths_capacity = grown;
        }
        state->lengths[state->count++] = 0;
        state->open = 1;
    }
    if (state->used + size > state->capacity) {
        size_t grown = state->capacity == 0 ? 4096 : state->capacity;
        while (grown < state->used + size) grown *= 2;
        unsigned char *bytes = realloc(state->bytes, grown);
        if (bytes == NULL) return -1;
        state->bytes = bytes;
        state->capacity = grown;
    }
    memcpy(state->bytes + state->used, data, size);
    state->used += size;
    state->lengths[state->count - 1] += size;
    return length;
}

/// Flush ends the open datagram; pending is what the open datagram holds, so OpenSSL sizes the next record to fit.
static long sluice_dtls_outbox_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    struct sluice_dtls_state *state = BIO_get_data(bio);
    if (state == NULL) return 0;
    switch (command) {
    case BIO_CTRL_FLUSH:
        state->open = 0;
        return 1;
    case BIO_CTRL_WPENDING:
        return state->open && state->count > 0 ? (long)state->lengths[state->count - 1] : 0;
    default:
        // No MTU to query, no overhead, no peer address: the caller owns the socket.
        return 0;
    }
}

static BIO_METHOD *sluice_dtls_outbox_method;
static pthread_once_t sluice_dtls_outbox_once = PTHREAD_ONCE_INIT;

static void sluice_dtls_outbox_make(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sluice DTLS datagrams");
    if (method == NULL) return;
    if (BIO_meth_set_write(method, sluice_dtls_outbox_write) != 1 || BIO_meth_set_ctrl(method, sluice_dtls_outbox_ctrl) != 1) return;
    sluice_dtls_outbox_method = method;
}

// MARK: One association

/// RFC 6347 §4.2.4.1: the retransmission timer doubles each time, up to 60 seconds.
static unsigned int sluice_dtls_timer(SSL *ssl, unsigned int previous_us) {
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    if (previous_us == 0) return state != NULL ? state->initial_timeout_us : 1000000;
    return previous_us >= 30000000 ? 60000000 : previous_us * 2;
}

static void sluice_dtls_state_free(struct sluice_dtls_state *state) {
    if (state == NULL) return;
    free(state->bytes);
    free(state->lengths);
    free(state);
}

SSL *sluice_dtls_new(SSL_CTX *context, int is_server, const unsigned char *expected_fingerprint, unsigned int mtu,
                     unsigned int initial_timeout_us) {
    pthread_once(&sluice_dtls_outbox_once, sluice_dtls_outbox_make);
    if (sluice_dtls_outbox_method == NULL) return NULL;
    struct sluice_dtls_state *state = calloc(1, sizeof *state);
    if (state == NULL) return NULL;
    memcpy(state->expected, expected_fingerprint, SLUICE_DTLS_FINGERPRINT_LENGTH);
    state->initial_timeout_us = initial_timeout_us;
    state->mtu = mtu;
    SSL *ssl = SSL_new(context);
    if (ssl == NULL || SSL_set_ex_data(ssl, 0, state) != 1) {
        if (ssl != NULL) SSL_free(ssl);
        sluice_dtls_state_free(state);
        return NULL;
    }
    BIO *incoming = BIO_new(BIO_s_mem());
    BIO *outgoing = BIO_new(sluice_dtls_outbox_method);
    if (incoming == NULL || outgoing == NULL) {
        // BIO_free is not in the list: an SSL owns BIOs once given them, and both are tiny.
        if (incoming != NULL || outgoing != NULL) SSL_set_bio(ssl, incoming, outgoing);
        sluice_dtls_free(ssl);
        return NULL;
    }
    // BIO_set_mem_eof_return(incoming, -1): an empty read BIO means "wait for the next datagram", not end of stream.
    BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, NULL);
    BIO_set_data(outgoing, state);
    BIO_set_init(outgoing, 1);
    SSL_set_bio(ssl, incoming, outgoing);
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    // SSL_set_mtu(ssl, mtu), which returns the MTU it set: records sized so each datagram stays within it, so the
    // certificate flight is fragmented.
    if (SSL_ctrl(ssl, SSL_CTRL_SET_MTU, (long)mtu, NULL) != (long)mtu) {
        sluice_dtls_free(ssl);
        return NULL;
    }
    DTLS_set_timer_cb(ssl, sluice_dtls_timer);
    if (is_server) SSL_set_accept_state(ssl);
    else SSL_set_connect_state(ssl);
    return ssl;
}

void sluice_dtls_free(SSL *ssl) {
    if (ssl == NULL) return;
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    SSL_free(ssl);
    sluice_dtls_state_free(state);
}

const unsigned char *sluice_dtls_peek_datagram(SSL *ssl, size_t *length) {
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    if (state == NULL || state->count == 0) return NULL;
    *length = state->lengths[0];
    return state->bytes;
}

void sluice_dtls_pop_datagram(SSL *ssl) {
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    if (state == NULL || state->count == 0) return;
    size_t first = state->lengths[0];
    memmove(state->bytes, state->bytes + first, state->used - first);
    state->used -= first;
    memmove(state->lengths, state->lengths + 1, (state->count - 1) * sizeof *state->lengths);
    state->count -= 1;
    // A datagram once taken is sent: the next record starts a new one.
    if (state->count == 0) state->open = 0;
}

int sluice_dtls_peer_fingerprint(SSL *ssl, unsigned char *digest) {
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    if (state == NULL || !state->presented_known) return 0;
    memcpy(digest, state->presented, SLUICE_DTLS_FINGERPRINT_LENGTH);
    return 1;
}

int sluice_dtls_fingerprint_mismatched(SSL *ssl) {
    struct sluice_dtls_state *state = SSL_get_ex_data(ssl, 0);
    return state != NULL && state->mismatched;
}

long long sluice_dtls_timeout_microseconds(SSL *ssl) {
    struct timeval left = { 0, 0 };
    // DTLSv1_get_timeout(ssl, &left)
    if (SSL_ctrl(ssl, DTLS_CTRL_GET_TIMEOUT, 0, &left) != 1) return -1;
    return (long long)left.tv_sec * 1000000 + left.tv_usec;
}

int sluice_dtls_handle_timeout(SSL *ssl) {
    // DTLSv1_handle_timeout(ssl)
    return (int)SSL_ctrl(ssl, DTLS_CTRL_HANDLE_TIMEOUT, 0, NULL);
}
