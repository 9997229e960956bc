#!/usr/bin/python3
# Debian's python3 (python3-pika, installed by scripts/bootstrap), not whatever python3 comes first on PATH.
"""Publishes one job document to sluice.jobs with pika, as an upstream service would.

usage: publish-job.py AMQP_URL JOB.json
The URL is taken as operators write it (amqp://user:pass@host:5672/ is the default vhost, as pika reads it).
"""
import sys

import pika


def main() -> int:
    url, path = sys.argv[1], sys.argv[2]
    body = open(path, "rb").read()
    connection = pika.BlockingConnection(pika.URLParameters(url))
    channel = connection.channel()
    channel.confirm_delivery()
    # mandatory: an unroutable job (no sluice.jobs queue yet) is an error, not a silent drop.
    channel.basic_publish(exchange="sluice.jobs", routing_key="sluice.jobs", body=body, mandatory=True,
                          properties=pika.BasicProperties(delivery_mode=2, content_type="application/json"))
    connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
