// OpenSSL 3 and libsrtp2 opened on first use instead of at process start (CLibraryLoader): a worker that never
// carries WebRTC never maps them. Each function of openssl_functions.h and srtp_functions.h is defined here under its
// own name as a forwarder to the real one.
#include <stdio.h>
#include <library_loader.h>

// Hidden, as libsrt's forwarders are (srt_loader.c): the executable exports no SSL_* or srtp_* of its own.
#pragma GCC visibility push(hidden)
#include "shim.h"

/// In dependency order: libssl needs libcrypto; Debian's libsrtp2 is built on NSS, so it needs neither.
static const char *const sluice_webrtc_sonames[] = { "libcrypto.so.3", "libssl.so.3", "libsrtp2.so.1" };
#define SLUICE_LIBCRYPTO 0
#define SLUICE_LIBSSL 1
#define SLUICE_LIBSRTP 2
static void *sluice_webrtc_handles[3];
static struct sluice_library_set sluice_webrtc_set = {
    sluice_webrtc_sonames, 3, sluice_webrtc_handles, PTHREAD_ONCE_INIT, "not loaded yet",
};

/// The real functions, filled once by `sluice_webrtc_open`.
static struct {
#define SLUICE_OPENSSL(library, type, name, parameters, arguments, unloaded) __typeof__(&name) name;
#define SLUICE_OPENSSL_VOID(library, name, parameters, arguments) __typeof__(&name) name;
#define SLUICE_SRTP(type, name, parameters, arguments, unloaded) __typeof__(&name) name;
#define SLUICE_SRTP_VOID(name, parameters, arguments) __typeof__(&name) name;
#include "openssl_functions.h"
#include "srtp_functions.h"
#undef SLUICE_OPENSSL
#undef SLUICE_OPENSSL_VOID
#undef SLUICE_SRTP
#undef SLUICE_SRTP_VOID
} sluice_webrtc;

static void sluice_webrtc_open(void) {
    if (sluice_library_set_open(&sluice_webrtc_set) != 0) return;
#define SLUICE_OPENSSL(library, type, name, parameters, arguments, unloaded) \
    SLUICE_RESOLVE(sluice_webrtc_set, sluice_webrtc, library, name)
#define SLUICE_OPENSSL_VOID(library, name, parameters, arguments) SLUICE_RESOLVE(sluice_webrtc_set, sluice_webrtc, library, name)
#define SLUICE_SRTP(type, name, parameters, arguments, unloaded) \
    SLUICE_RESOLVE(sluice_webrtc_set, sluice_webrtc, SLUICE_LIBSRTP, name)
#define SLUICE_SRTP_VOID(name, parameters, arguments) SLUICE_RESOLVE(sluice_webrtc_set, sluice_webrtc, SLUICE_LIBSRTP, name)
#include "openssl_functions.h"
#include "srtp_functions.h"
#undef SLUICE_OPENSSL
#undef SLUICE_OPENSSL_VOID
#undef SLUICE_SRTP
#undef SLUICE_SRTP_VOID
    // libsrtp's crypto kernel, once per process: every session needs it.
    srtp_err_status_t status = sluice_webrtc.srtp_init();
    if (status != srtp_err_status_ok) {
        snprintf(sluice_webrtc_set.failure, sizeof sluice_webrtc_set.failure, "%s: srtp_init failed (status %d)",
                 sluice_webrtc_sonames[SLUICE_LIBSRTP], (int)status);
        return;
    }
    sluice_library_set_loaded(&sluice_webrtc_set);
}

/// Loads the three libraries once per process.
static inline int sluice_webrtc_ready(void) {
    return sluice_library_set_ready(&sluice_webrtc_set, sluice_webrtc_open);
}

#define SLUICE_OPENSSL(library, type, name, parameters, arguments, unloaded) \
    SLUICE_FORWARD(sluice_webrtc_ready, sluice_webrtc, type, name, parameters, arguments, unloaded)
#define SLUICE_OPENSSL_VOID(library, name, parameters, arguments) \
    SLUICE_FORWARD_VOID(sluice_webrtc_ready, sluice_webrtc, name, parameters, arguments)
#define SLUICE_SRTP(type, name, parameters, arguments, unloaded) \
    SLUICE_FORWARD(sluice_webrtc_ready, sluice_webrtc, type, name, parameters, arguments, unloaded)
#define SLUICE_SRTP_VOID(name, parameters, arguments) \
    SLUICE_FORWARD_VOID(sluice_webrtc_ready, sluice_webrtc, name, parameters, arguments)
#include "openssl_functions.h"
#include "srtp_functions.h"
#undef SLUICE_OPENSSL
#undef SLUICE_OPENSSL_VOID
#undef SLUICE_SRTP
#undef SLUICE_SRTP_VOID
#pragma GCC visibility pop

const char *sluice_webrtc_crypto_load(void) {
    return sluice_webrtc_ready() ? NULL : sluice_webrtc_set.failure;
}
