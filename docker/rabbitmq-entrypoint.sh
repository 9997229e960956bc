#!/bin/sh
# The official image's contract on Debian's package: the default user from the environment, then the
# server in the foreground as the rabbitmq user (so SIGTERM from the engine stops it cleanly).
set -eu
if [ -n "${RABBITMQ_DEFAULT_USER:-}" ]; then
    # Written outside the mounted conf.d files; the password never reaches the log.
    umask 077
    printf 'default_user = %s\ndefault_pass = %s\n' "$RABBITMQ_DEFAULT_USER" "${RABBITMQ_DEFAULT_PASS:-}" \
        > /etc/rabbitmq/conf.d/10-default-user.conf
    chown rabbitmq:rabbitmq /etc/rabbitmq/conf.d/10-default-user.conf
fi
unset RABBITMQ_DEFAULT_PASS
chown -R rabbitmq:rabbitmq /var/lib/rabbitmq
exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups /usr/lib/rabbitmq/bin/rabbitmq-server
