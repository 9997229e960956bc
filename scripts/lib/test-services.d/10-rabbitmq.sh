# Sourced by scripts/test: a private RabbitMQ node on a loopback port of its own, for the queue tests.
rabbit_dir="$SLUICE_TEST_WORK/rabbitmq"
rabbit_port=$(scripts/lib/rabbitmq.sh free-port)
echo "test: starting a private RabbitMQ on 127.0.0.1:$rabbit_port" >&2
printf '#!/bin/sh\nexec %q stop %q %q >/dev/null 2>&1\n' "$(pwd)/scripts/lib/rabbitmq.sh" "$rabbit_dir" "$rabbit_port" > "$SLUICE_TEST_WORK/stop-rabbitmq"
chmod +x "$SLUICE_TEST_WORK/stop-rabbitmq"
# Not $(…): the detached node would inherit the pipe and the substitution would wait for it forever.
scripts/lib/rabbitmq.sh start "$rabbit_dir" "$rabbit_port" > "$SLUICE_TEST_WORK/amqp-url"
SLUICE_TEST_AMQP_URL=$(head -n 1 "$SLUICE_TEST_WORK/amqp-url")
export SLUICE_TEST_AMQP_URL
export SLUICE_TEST_RABBITMQCTL="$rabbit_dir/rabbitmqctl"
