// FFmpeg 5.1's headers for Swift, the one call that loads the libraries (libav_loader.c), and what Swift cannot
// import from the headers (function-like and compound macros), re-exported as tiny inline functions with a
// `sluice_` prefix.
#ifndef SLUICE_CFFMPEG_SHIM_H
#define SLUICE_CFFMPEG_SHIM_H

#include <errno.h>
#include <unistd.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/// Opens libavutil, libswresample, libswscale, libavcodec and libavformat, once per process (every libav call does
/// this itself on first use). Returns NULL once they are loaded, otherwise why they could not be: dlerror's text, or
/// the function a library lacks. Thread-safe.
const char *sluice_libav_load(void);

/// AVERROR(e): FFmpeg's negative errno convention.
static inline int sluice_averror(int e) { return AVERROR(e); }
/// AVERROR_EOF: end of stream.
static inline int sluice_averror_eof(void) { return AVERROR_EOF; }
/// AVERROR_EXIT: an interrupt callback asked the operation to stop.
static inline int sluice_averror_exit(void) { return AVERROR_EXIT; }
/// AVERROR(EAGAIN): send/receive wants the other call first.
static inline int sluice_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_INVALIDDATA: a corrupt packet, which a decoder skips rather than ending the job.
static inline int sluice_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// AV_NOPTS_VALUE: "no timestamp" (INT64_MIN, a macro with a cast Swift cannot import).
static inline int64_t sluice_nopts_value(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE_Q: microseconds as a rational (a compound literal in C).
static inline AVRational sluice_time_base_q(void) { AVRational q = {1, AV_TIME_BASE}; return q; }
/// av_err2str without its compound-literal buffer: writes the message into `buf`.
static inline const char *sluice_err2str(int errnum, char *buf, size_t size) {
    av_strerror(errnum, buf, size);
    return buf;
}

#endif
