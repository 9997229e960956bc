#!/usr/bin/env python3
"""Checks a rendered kustomization: custom resources against strict JSON schemas, and the fleet's wiring.

usage: kubernetes-wiring.py RENDERED.yaml SCHEMA_DIR KUBERNETES_VALIDATE_OUTPUT
"""
import json
import pathlib
import re
import sys

import jsonschema
import yaml

# The queues and secret the Swift code and the base agree on (Topology, JobLease.queueName, secret-amqp.yaml):
# per class, the queues its waiting and running jobs are in, the setting that gives a pod's capacity, and the most
# jobs per pod KEDA may assume from it (its trigger's `value`): the slots for live and batch; for encode, whose
# capacity is in 720p30-equivalents, the jobs of 3 units (1080p30, the cost of an encode that names no size) it
# carries, at least 1 (EncodeUnit in Sources/JobDocument/EncodeCost.swift).
AMQP_SECRET = "sluice-amqp"
SECRETS_KEY_SECRET = "sluice-secrets-key"
UNSIZED_ENCODE_COST = 3
CLASSES = {
    "batch": {"slots": "SLUICE_BATCH_SLOTS", "queues": ("sluice.jobs", "sluice.jobs.batch", "sluice.batch-lease.archive-7"),
              "most_per_pod": lambda slots: slots, "exact": True},
    "live": {"slots": "SLUICE_LIVE_SLOTS", "queues": ("sluice.jobs.live", "sluice.lease.cam42-restream"),
             "most_per_pod": lambda slots: slots, "exact": True},
    "encode": {"slots": "SLUICE_ENCODE_SLOTS", "queues": ("sluice.jobs.encode", "sluice.encode-lease.cam42-720p"),
               "most_per_pod": lambda units: max(1, units // UNSIZED_ENCODE_COST), "exact": False},
}
# Queues that hold no work a worker must take.
NOT_JOBS = ("sluice.jobs.dead", "sluice.jobs.retry", "sluice.ledger", "sluice.events", "test.sluice.jobs")


def main() -> int:
    rendered, schema_dir, validate_output = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    objects = [o for o in yaml.safe_load_all(open(rendered)) if o]
    failures = []

    # Every kind kubernetes-validate had no schema for must be one of ours, validated strictly here.
    unvalidated = set(re.findall(r"Couldn't find schema for kind (\S+) with api version (\S+)", open(validate_output).read()))
    for kind, api_version in sorted(unvalidated):
        path = schema_dir / f"{kind.lower()}-{api_version.replace('/', '-').replace('.', '-')}.json"
        if not path.exists():
            failures.append(f"{kind} ({api_version}): no schema in {schema_dir} (expected {path.name})")
            continue
        schema = json.loads(path.read_text())
        for obj in (o for o in objects if o["kind"] == kind and o["apiVersion"] == api_version):
            for error in jsonschema.Draft202012Validator(schema).iter_errors(obj):
                where = ".".join(str(p) for p in error.absolute_path) or "(root)"
                failures.append(f"{kind}/{obj['metadata']['name']}: {where}: {error.message}")
            print(f"INFO {kind}/{obj['metadata']['name']} checked against {path.name}", file=sys.stderr)

    def find(kind, name=None):
        return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]

    def need(condition, text):
        if not condition:
            failures.append(text)

    secrets = {o["metadata"]["name"]: o for o in find("Secret")}
    need(AMQP_SECRET in secrets, f"no Secret {AMQP_SECRET}")
    secret_keys = set((secrets.get(AMQP_SECRET, {}).get("stringData") or {}) | (secrets.get(AMQP_SECRET, {}).get("data") or {}))
    config = {k: v for o in find("ConfigMap", "sluice-worker") for k, v in o["data"].items()}

    workers = find("Deployment", "sluice-worker")
    need(len(workers) == 1, "no Deployment sluice-worker")
    for worker in workers:
        pod = worker["spec"]["template"]["spec"]
        container = pod["containers"][0]
        grace = float(config.get("SLUICE_GRACE_S", "30"))
        need(pod.get("terminationGracePeriodSeconds", 30) >= grace + 10,
             f"worker terminationGracePeriodSeconds {pod.get('terminationGracePeriodSeconds')} does not cover SLUICE_GRACE_S {grace} + 10 s to settle")
        need(pod.get("securityContext", {}).get("runAsNonRoot") is True, "worker pods must run as non-root")
        need(container.get("securityContext", {}).get("readOnlyRootFilesystem") is True, "worker root filesystem must be read-only")
        for probe in ("livenessProbe", "readinessProbe"):
            need(container.get(probe, {}).get("httpGet", {}).get("path") == "/healthz", f"worker {probe} must GET /healthz")
        need("limits" in container.get("resources", {}) and "requests" in container.get("resources", {}), "worker resources must set requests and limits")
        urls = [e for e in container.get("env", []) if e["name"] == "SLUICE_AMQP_URL"]
        need(bool(urls) and urls[0].get("valueFrom", {}).get("secretKeyRef", {}).get("name") == AMQP_SECRET,
             f"worker SLUICE_AMQP_URL must come from Secret {AMQP_SECRET}")
        if urls:
            need(urls[0]["valueFrom"]["secretKeyRef"]["key"] in secret_keys, "worker SLUICE_AMQP_URL names a key the Secret lacks")
        # The key that seals job secrets at rest comes from its own Secret, never from the ConfigMap.
        need("SLUICE_SECRETS_KEY" not in config, "SLUICE_SECRETS_KEY must not be in the ConfigMap")
        keys = [e for e in container.get("env", []) if e["name"] == "SLUICE_SECRETS_KEY"]
        key_ref = keys[0].get("valueFrom", {}).get("secretKeyRef", {}) if keys else {}
        key_secret = secrets.get(key_ref.get("name"), {})
        need(key_ref.get("name") == SECRETS_KEY_SECRET and key_ref.get("key") in
             set((key_secret.get("stringData") or {}) | (key_secret.get("data") or {})),
             f"worker SLUICE_SECRETS_KEY must come from a key of Secret {SECRETS_KEY_SECRET}")

    scaled = find("ScaledObject")
    need(len(scaled) == 1, "expected one ScaledObject")
    auths = {o["metadata"]["name"]: o for o in find("TriggerAuthentication")}
    for so in scaled:
        target = so["spec"]["scaleTargetRef"]
        need(target.get("kind", "Deployment") == "Deployment" and target["name"] == "sluice-worker",
             "the ScaledObject must scale Deployment sluice-worker")
        rabbit = [t for t in so["spec"]["triggers"] if t["type"] == "rabbitmq"]
        need(len(rabbit) == len(CLASSES), f"the ScaledObject needs one rabbitmq trigger per class ({', '.join(CLASSES)})")
        covered = set()
        for trigger in rabbit:
            meta = trigger["metadata"]
            queue = meta.get("queueName", "")
            need(meta.get("useRegex") == "true" and meta.get("operation") == "sum",
                 "each rabbitmq trigger must sum its class's queues by regex")
            matches = lambda name: re.fullmatch(queue, name) is not None
            # The trigger's class: the one whose queues it matches. Waiting plus running jobs of it, nothing else.
            owners = [name for name, cls in CLASSES.items() if any(matches(q) for q in cls["queues"])]
            need(len(owners) == 1, f"the rabbitmq trigger's queueName {queue} must match the queues of exactly one class, not {owners}")
            for owner in owners[:1]:
                covered.add(owner)
                cls = CLASSES[owner]
                for name in cls["queues"]:
                    need(matches(name), f"the {owner} trigger's queueName {queue} must match {name}")
                slots = config.get(cls["slots"])
                need(slots is not None and slots.isdigit(), f"the ConfigMap must set {cls['slots']} (KEDA's {owner} trigger depends on it)")
                if slots is not None and slots.isdigit():
                    most = cls["most_per_pod"](int(slots))
                    value = meta.get("value", "")
                    if cls["exact"]:
                        need(value == slots,
                             f"the {owner} trigger's queue length per pod ({value}) must equal {cls['slots']} ({slots})")
                    else:
                        need(value.isdigit() and 1 <= int(value) <= most,
                             f"the {owner} trigger's queue length per pod ({value}) must be 1…{most}: the jobs of "
                             f"{UNSIZED_ENCODE_COST} units that {cls['slots']} ({slots}) carries")
            for name in NOT_JOBS:
                need(not matches(name), f"the rabbitmq trigger's queueName {queue} must not match {name}")
            need(meta.get("protocol") == "http", "the rabbitmq trigger must use the http protocol (counts unacked messages too)")
            need(meta.get("mode") == "QueueLength", "the rabbitmq trigger must scale on QueueLength")
            auth = auths.get(trigger.get("authenticationRef", {}).get("name"))
            need(auth is not None, "the rabbitmq trigger's TriggerAuthentication is missing")
            if auth:
                refs = {r["parameter"]: r for r in auth["spec"]["secretTargetRef"]}
                host = refs.get("host")
                need(host is not None and host["name"] == AMQP_SECRET and host["key"] in secret_keys,
                     f"the trigger's host must come from a key of Secret {AMQP_SECRET}")
        need(covered == set(CLASSES), f"no rabbitmq trigger for {', '.join(sorted(set(CLASSES) - covered))}")

    need(len(find("PodDisruptionBudget")) >= 1, "no PodDisruptionBudget")
    need(any(p["name"] == "http-metrics" for s in find("Service", "sluice-worker-metrics") for p in s["spec"]["ports"]),
         "no metrics Service sluice-worker-metrics with port http-metrics")
    ledger = find("Deployment", "sluice-ledger")
    need(len(ledger) == 1 and ledger[0]["spec"]["template"]["spec"]["containers"][0]["args"] == ["ledger"],
         "no Deployment sluice-ledger running `sluice ledger`")

    for failure in failures:
        print(f"ERROR {rendered}: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
