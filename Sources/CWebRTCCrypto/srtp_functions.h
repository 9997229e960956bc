// Every libsrtp2 function Sluice calls, one line each, for webrtc_crypto_loader.c (an X-macro list: the includer
// defines SLUICE_SRTP and SLUICE_SRTP_VOID). Columns: the return type, the name, the parameters, the arguments, and
// what the call returns when libsrtp2 could not be loaded. srtp_init is called by the loader itself, once.

SLUICE_SRTP(srtp_err_status_t, srtp_create, (srtp_t *session, const srtp_policy_t *policy), (session, policy), srtp_err_status_init_fail)
SLUICE_SRTP_VOID(srtp_crypto_policy_set_aes_gcm_128_16_auth, (srtp_crypto_policy_t *p), (p))
SLUICE_SRTP_VOID(srtp_crypto_policy_set_rtcp_default, (srtp_crypto_policy_t *p), (p))
SLUICE_SRTP_VOID(srtp_crypto_policy_set_rtp_default, (srtp_crypto_policy_t *p), (p))
SLUICE_SRTP(srtp_err_status_t, srtp_dealloc, (srtp_t s), (s), srtp_err_status_init_fail)
SLUICE_SRTP(srtp_err_status_t, srtp_init, (void), (), srtp_err_status_init_fail)
SLUICE_SRTP(srtp_err_status_t, srtp_protect, (srtp_t ctx, void *rtp_hdr, int *len_ptr), (ctx, rtp_hdr, len_ptr), srtp_err_status_init_fail)
SLUICE_SRTP(srtp_err_status_t, srtp_protect_rtcp, (srtp_t ctx, void *rtcp_hdr, int *pkt_octet_len), (ctx, rtcp_hdr, pkt_octet_len), srtp_err_status_init_fail)
SLUICE_SRTP(srtp_err_status_t, srtp_unprotect, (srtp_t ctx, void *srtp_hdr, int *len_ptr), (ctx, srtp_hdr, len_ptr), srtp_err_status_init_fail)
SLUICE_SRTP(srtp_err_status_t, srtp_unprotect_rtcp, (srtp_t ctx, void *srtcp_hdr, int *pkt_octet_len), (ctx, srtcp_hdr, pkt_octet_len), srtp_err_status_init_fail)
