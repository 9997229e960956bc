// libsrt 1.5.1 (Debian's libsrt-gnutls-dev: headers under /usr/include/srt), opened on first use by srt_loader.c.
// Swift imports the API, its enums, CBytePerfMon and the integer macros (SRT_REJX_*, SRT_LOGF_*, the syslog levels
// the log API speaks) directly; this shim gathers the headers SRTTransport needs and adds, with a `sluice_` prefix,
// the one call Swift cannot make.
#ifndef SLUICE_CSRT_SHIM_H
#define SLUICE_CSRT_SHIM_H

#include <srt/srt.h>
#include <srt/access_control.h>
#include <srt/logging_api.h>
#include <syslog.h>
#include <sys/prctl.h>

/// Names the calling thread as ps and /proc show it (at most 15 bytes): prctl is variadic, which Swift cannot call,
/// and Foundation's `Thread.name` reaches the kernel only when it wins a race with the thread's start.
static inline int sluice_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

/// Opens libsrt once per process (every libsrt call does this itself on first use). Returns NULL once it is loaded,
/// otherwise why it could not be: dlerror's text, or the function it lacks. Thread-safe.
const char *sluice_srt_load(void);

#endif
