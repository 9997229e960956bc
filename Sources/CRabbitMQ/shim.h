// librabbitmq 0.11. Debian's librabbitmq-dev installs its headers at the top of /usr/include (amqp.h, …),
// not under rabbitmq-c/ as later releases do. Swift imports the constants and the frame unions directly;
// this shim adds only what it cannot import, with a `sluice_` prefix.
#ifndef SLUICE_CRABBITMQ_SHIM_H
#define SLUICE_CRABBITMQ_SHIM_H

#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_ssl_socket.h>
#include <amqp_tcp_socket.h>

/// amqp_login_with_properties with SASL PLAIN: the C function is variadic, which Swift cannot call.
static inline amqp_rpc_reply_t sluice_login_plain(amqp_connection_state_t state, const char *vhost,
                                                  int channel_max, int frame_max, int heartbeat,
                                                  const amqp_table_t *properties, const char *user,
                                                  const char *password) {
    return amqp_login_with_properties(state, vhost, channel_max, frame_max, heartbeat, properties,
                                      AMQP_SASL_METHOD_PLAIN, user, password);
}

#endif
