// libav opened on first use instead of at process start (CLibraryLoader): a worker that only relays never maps
// libavformat, libavcodec and the ~140 libraries they pull in. Each function of libav_functions.h is defined here
// under its own name as a forwarder to the real one.
#include <stdio.h>
#include <library_loader.h>

// Hidden: the forwarders are this executable's own, and never what a loaded library's lookup finds instead
// of libav's (libavformat calls libavcodec through the global scope, which an exported name would enter first).
#pragma GCC visibility push(hidden)
#include "shim.h"

/// What a forwarder returns when the libraries could not be loaded: "Can not access a needed shared library".
#define SLUICE_LIBAV_UNLOADED AVERROR(ELIBACC)
#define SLUICE_LIBAV_ZERO_RATIONAL ((AVRational){0, 1})

enum { AVUTIL, SWRESAMPLE, SWSCALE, AVCODEC, AVFORMAT, SLUICE_LIBAV_LIBRARIES };

/// The sonames of the major versions these headers describe, in dependency order.
static const char *const sluice_libav_sonames[SLUICE_LIBAV_LIBRARIES] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};
static void *sluice_libav_handles[SLUICE_LIBAV_LIBRARIES];
static struct sluice_library_set sluice_libav_set = {
    sluice_libav_sonames, SLUICE_LIBAV_LIBRARIES, sluice_libav_handles, PTHREAD_ONCE_INIT, "not loaded yet",
};

/// The real functions, filled once by `sluice_libav_open`.
static struct {
#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) __typeof__(&name) name;
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) __typeof__(&name) name;
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
} sluice_libav;

static void sluice_libav_open(void) {
    if (sluice_library_set_open(&sluice_libav_set) != 0) return;
#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) \
    SLUICE_RESOLVE(sluice_libav_set, sluice_libav, library, name)
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) SLUICE_RESOLVE(sluice_libav_set, sluice_libav, library, name)
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
    sluice_library_set_loaded(&sluice_libav_set);
}

/// Loads the libraries once per process.
static inline int sluice_libav_ready(void) {
    return sluice_library_set_ready(&sluice_libav_set, sluice_libav_open);
}

/// av_strerror when there is no libavutil to ask: the message says why not.
static int sluice_libav_unloaded_message(char *buffer, size_t size) {
    if (size > 0) snprintf(buffer, size, "the libav libraries could not be loaded: %s", sluice_libav_set.failure);
    return 0;
}

#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) \
    SLUICE_FORWARD(sluice_libav_ready, sluice_libav, type, name, parameters, arguments, unloaded)
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) \
    SLUICE_FORWARD_VOID(sluice_libav_ready, sluice_libav, name, parameters, arguments)
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
#pragma GCC visibility pop

const char *sluice_libav_load(void) {
    return sluice_libav_ready() ? NULL : sluice_libav_set.failure;
}
