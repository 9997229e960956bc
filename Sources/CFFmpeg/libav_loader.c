// libav opened on first use instead of at process start. The executable does not link libavformat and its
// kin: a worker that only relays never maps them (about 140 shared libraries, 27 MiB of a relay worker's RSS).
// Each function Swift calls is defined here under its own name, hidden from the dynamic symbol table, and
// forwards to the real one, which `dlsym` finds in the library that defines it after one `dlopen` per library.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// Hidden: the forwarders are this executable's own, and never what a loaded library's lookup finds instead
// of libav's (libavformat calls libavcodec through the global scope, which an exported name would enter first).
#pragma GCC visibility push(hidden)
#include "shim.h"

/// What a forwarder returns when the libraries could not be loaded: "Can not access a needed shared library".
#define SLUICE_LIBAV_UNLOADED AVERROR(ELIBACC)
#define SLUICE_LIBAV_ZERO_RATIONAL ((AVRational){0, 1})

enum sluice_libav_library { AVUTIL, SWRESAMPLE, SWSCALE, AVCODEC, AVFORMAT, SLUICE_LIBAV_LIBRARIES };

/// The sonames of the major versions these headers describe, in dependency order.
static const char *const sluice_libav_sonames[SLUICE_LIBAV_LIBRARIES] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

/// The real functions, filled once by `sluice_libav_open`.
static struct {
#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) __typeof__(&name) name;
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) __typeof__(&name) name;
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
} sluice_libav;

static pthread_once_t sluice_libav_once = PTHREAD_ONCE_INIT;
/// Empty once the libraries are loaded; otherwise why they are not. Written only inside the once.
static char sluice_libav_failure[512] = "not loaded yet";

static void sluice_libav_open(void) {
    void *handles[SLUICE_LIBAV_LIBRARIES];
    for (int library = 0; library < SLUICE_LIBAV_LIBRARIES; library++) {
        handles[library] = dlopen(sluice_libav_sonames[library], RTLD_NOW | RTLD_LOCAL);
        if (handles[library] == NULL) {
            const char *reason = dlerror();
            snprintf(sluice_libav_failure, sizeof sluice_libav_failure, "%s", reason ? reason : sluice_libav_sonames[library]);
            return;
        }
    }
    // dlsym on a handle searches that library and its dependencies, never this executable.
#define SLUICE_LIBAV_RESOLVE(library, name)                                                                         \
    sluice_libav.name = (__typeof__(&name))dlsym(handles[library], #name);                                          \
    if (sluice_libav.name == NULL) {                                                                                  \
        snprintf(sluice_libav_failure, sizeof sluice_libav_failure, "%s has no %s", sluice_libav_sonames[library], #name); \
        return;                                                                                                       \
    }
#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) SLUICE_LIBAV_RESOLVE(library, name)
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) SLUICE_LIBAV_RESOLVE(library, name)
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
#undef SLUICE_LIBAV_RESOLVE
    sluice_libav_failure[0] = '\0';
}

/// Loads the libraries once per process; every later call is one check.
static inline int sluice_libav_ready(void) {
    pthread_once(&sluice_libav_once, sluice_libav_open);
    return sluice_libav_failure[0] == '\0';
}

/// av_strerror when there is no libavutil to ask: the message says why not.
static int sluice_libav_unloaded_message(char *buffer, size_t size) {
    if (size > 0) snprintf(buffer, size, "the libav libraries could not be loaded: %s", sluice_libav_failure);
    return 0;
}

#pragma GCC visibility pop

const char *sluice_libav_load(void) {
    return sluice_libav_ready() ? NULL : sluice_libav_failure;
}

// The forwarders, hidden like the declarations they define.
#pragma GCC visibility push(hidden)
#define SLUICE_LIBAV(library, type, name, parameters, arguments, unloaded) \
    type name parameters { return sluice_libav_ready() ? sluice_libav.name arguments : (unloaded); }
#define SLUICE_LIBAV_VOID(library, name, parameters, arguments) \
    void name parameters { if (sluice_libav_ready()) sluice_libav.name arguments; }
#include "libav_functions.h"
#undef SLUICE_LIBAV
#undef SLUICE_LIBAV_VOID
#pragma GCC visibility pop
