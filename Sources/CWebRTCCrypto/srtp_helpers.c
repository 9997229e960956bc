// libsrtp's session policy filled in C: its struct layout and the crypto-policy setters stay on this side.
#include <string.h>
#include "shim.h"

srtp_err_status_t sluice_srtp_create(srtp_t *session, int profile, const unsigned char *key_and_salt, size_t length,
                                     int outbound, unsigned long window_size) {
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    // RFC 5764 §4.1.2's profile ids; each fixes the master key and salt lengths (RFC 3711 §8.2, RFC 7714 §12).
    size_t expected;
    switch (profile) {
    case 0x0001:
        srtp_crypto_policy_set_rtp_default(&policy.rtp);
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp);
        expected = SRTP_AES_ICM_128_KEY_LEN_WSALT;
        break;
    case 0x0007:
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
        expected = SRTP_AES_GCM_128_KEY_LEN_WSALT;
        break;
    default:
        return srtp_err_status_bad_param;
    }
    if (length != expected) return srtp_err_status_bad_param;
    unsigned char key[SRTP_MAX_KEY_LEN];
    memcpy(key, key_and_salt, length);
    policy.key = key;
    policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
    policy.window_size = window_size;
    // NACK answers resend a packet we protected already; libsrtp refuses a repeated index unless told.
    policy.allow_repeat_tx = outbound ? 1 : 0;
    return srtp_create(session, &policy);
}
