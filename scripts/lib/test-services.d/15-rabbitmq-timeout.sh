# Sourced by scripts/test: a second private RabbitMQ whose consumer_timeout is 20 s (the default is 30 min),
# for the tests of restreams that outlive it (a delivery left unacked that long gets its channel closed).
timeout_rabbit_dir="$SLUICE_TEST_WORK/rabbitmq-timeout"
timeout_rabbit_port=$(scripts/lib/rabbitmq.sh free-port)
echo "test: starting a private RabbitMQ with consumer_timeout 20 s on 127.0.0.1:$timeout_rabbit_port" >&2
printf '#!/bin/sh\nexec %q stop %q %q >/dev/null 2>&1\n' "$(pwd)/scripts/lib/rabbitmq.sh" "$timeout_rabbit_dir" "$timeout_rabbit_port" > "$SLUICE_TEST_WORK/stop-rabbitmq-timeout"
chmod +x "$SLUICE_TEST_WORK/stop-rabbitmq-timeout"
# Not $(…): the detached node would inherit the pipe and the substitution would wait for it forever.
scripts/lib/rabbitmq.sh start "$timeout_rabbit_dir" "$timeout_rabbit_port" > "$SLUICE_TEST_WORK/amqp-timeout-url"
# Channels read both when they open, so setting them before any client connects applies to all; the check runs
# on the channel tick, once a minute by default.
"$timeout_rabbit_dir/rabbitmqctl" eval 'application:set_env(rabbit, consumer_timeout, 20000), application:set_env(rabbit, channel_tick_interval, 1000).' >/dev/null
SLUICE_TEST_AMQP_TIMEOUT_URL=$(head -n 1 "$SLUICE_TEST_WORK/amqp-timeout-url")
export SLUICE_TEST_AMQP_TIMEOUT_URL
export SLUICE_TEST_TIMEOUT_RABBITMQCTL="$timeout_rabbit_dir/rabbitmqctl"
