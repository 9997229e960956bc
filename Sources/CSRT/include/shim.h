// libsrt 1.5.1 (Debian's libsrt-gnutls-dev: headers under /usr/include/srt), opened on first use by srt_loader.c.
// Swift imports the API, its enums, CBytePerfMon and the integer macros (SRT_REJX_*, SRT_LOGF_*, the syslog levels
// the log API speaks) directly; this shim gathers the headers SRTTransport needs.
#ifndef SLUICE_CSRT_SHIM_H
#define SLUICE_CSRT_SHIM_H

#include <srt/srt.h>
#include <srt/access_control.h>
#include <srt/logging_api.h>
#include <syslog.h>

/// Opens libsrt once per process (every libsrt call does this itself on first use). Returns NULL once it is loaded,
/// otherwise why it could not be: dlerror's text, or the function it lacks. Thread-safe.
const char *sluice_srt_load(void);

#endif
