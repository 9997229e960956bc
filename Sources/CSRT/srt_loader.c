// libsrt opened on first use instead of at process start (CLibraryLoader): a worker that carries no SRT never maps
// libsrt-gnutls, GnuTLS and the libraries it pulls in. Each function of srt_functions.h is defined here under its
// own name as a forwarder to the real one.
#include <stdio.h>
#include <library_loader.h>

// Hidden, as libav's forwarders are (libav_loader.c).
#pragma GCC visibility push(hidden)
#include "shim.h"

/// Debian's GnuTLS build, the one libavformat59 links: one libsrt in the process whichever opens it first.
static const char *const sluice_srt_sonames[] = { "libsrt-gnutls.so.1.5" };
static void *sluice_srt_handles[1];
static struct sluice_library_set sluice_srt_set = {
    sluice_srt_sonames, 1, sluice_srt_handles, PTHREAD_ONCE_INIT, "not loaded yet",
};

/// The real functions, filled once by `sluice_srt_open`.
static struct {
#define SLUICE_SRT(type, name, parameters, arguments, unloaded) __typeof__(&name) name;
#define SLUICE_SRT_VOID(name, parameters, arguments) __typeof__(&name) name;
#include "srt_functions.h"
#undef SLUICE_SRT
#undef SLUICE_SRT_VOID
} sluice_srt;

static void sluice_srt_open(void) {
    if (sluice_library_set_open(&sluice_srt_set) != 0) return;
#define SLUICE_SRT(type, name, parameters, arguments, unloaded) SLUICE_RESOLVE(sluice_srt_set, sluice_srt, 0, name)
#define SLUICE_SRT_VOID(name, parameters, arguments) SLUICE_RESOLVE(sluice_srt_set, sluice_srt, 0, name)
#include "srt_functions.h"
#undef SLUICE_SRT
#undef SLUICE_SRT_VOID
    sluice_library_set_loaded(&sluice_srt_set);
}

/// Loads libsrt once per process.
static inline int sluice_srt_ready(void) {
    return sluice_library_set_ready(&sluice_srt_set, sluice_srt_open);
}

#define SLUICE_SRT(type, name, parameters, arguments, unloaded) \
    SLUICE_FORWARD(sluice_srt_ready, sluice_srt, type, name, parameters, arguments, unloaded)
#define SLUICE_SRT_VOID(name, parameters, arguments) SLUICE_FORWARD_VOID(sluice_srt_ready, sluice_srt, name, parameters, arguments)
#include "srt_functions.h"
#undef SLUICE_SRT
#undef SLUICE_SRT_VOID
#pragma GCC visibility pop

const char *sluice_srt_load(void) {
    return sluice_srt_ready() ? NULL : sluice_srt_set.failure;
}
