// libsrt 1.5.1 (Debian's libsrt-gnutls-dev: headers under /usr/include/srt, found through pkg-config "srt").
// Swift imports the API, its enums, CBytePerfMon and the integer macros (SRT_REJX_*, SRT_LOGF_*, the syslog levels
// the log API speaks) directly, so this shim only gathers the headers SRTTransport needs.
#ifndef SLUICE_CSRT_SHIM_H
#define SLUICE_CSRT_SHIM_H

#include <srt.h>
#include <access_control.h>
#include <logging_api.h>
#include <syslog.h>

#endif
