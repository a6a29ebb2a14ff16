#!/usr/bin/env python3
"""Send one OTLP/JSON span and one log record to obsd, then print the collector's health.

Standard library only. Usage: python3 send_and_check.py [BASE_URL]
(default http://127.0.0.1:27686, or $OBS_MONITOR_URL).
"""
import json
import os
import secrets
import sys
import time
import urllib.request

base = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OBS_MONITOR_URL", "http://127.0.0.1:27686")).rstrip("/")
now = time.time_ns()
trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "python-client"}}]}


def post(path, payload):
    request = urllib.request.Request(
        base + path,
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


spans = post("/v1/traces", {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "example"}, "spans": [{
    "traceId": trace_id, "spanId": span_id, "name": "GET /hello", "kind": 2,
    "startTimeUnixNano": str(now - 5_000_000), "endTimeUnixNano": str(now),
    "attributes": [{"key": "http.response.status_code", "value": {"intValue": "200"}}],
}]}]}]})
logs = post("/v1/logs", {"resourceLogs": [{"resource": resource, "scopeLogs": [{"scope": {"name": "example"}, "logRecords": [{
    "timeUnixNano": str(now), "severityNumber": 9, "severityText": "INFO",
    "body": {"stringValue": "hello from python"}, "traceId": trace_id, "spanId": span_id,
}]}]}]})
with urllib.request.urlopen(base + "/api/health", timeout=10) as response:
    health = json.load(response)
print(json.dumps({"traces": spans, "logs": logs, "trace_id": trace_id, "counts": health["counts"]}))
