#!/usr/bin/env python3
"""Page through a collector's error traces and print each one's span tree.

Standard library only. Usage: python3 query_traces.py [BASE_URL] [LOOKBACK]
(default http://127.0.0.1:27686, or $OBS_MONITOR_URL; lookback 15m).
Prints one JSON document: the error traces found and the tree of the newest one.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

base = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OBS_MONITOR_URL", "http://127.0.0.1:27686")).rstrip("/")
lookback = sys.argv[2] if len(sys.argv) > 2 else "15m"


def get(path, **params):
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        # Errors are {"error": "..."} with a 4xx or 5xx status.
        sys.exit(f"{error.code}: {json.load(error)['error']}")


# Follow nextCursor until the last page; the cursor is opaque and goes back unchanged.
traces, cursor, pages = [], None, 0
while True:
    params = {"status": "error", "lookback": lookback, "limit": 2}
    if cursor:
        params["cursor"] = cursor
    page = get("/api/traces", **params)
    traces += page["data"]
    pages += 1
    cursor = page["meta"]["nextCursor"]
    if not cursor:
        break


def flatten(nodes):
    # The tree is a flat list in depth-first order: indent each node by its depth.
    for node in nodes:
        yield "  " * node["depth"] + f'{node["operation"]} ({node["serviceName"]}, {node["durationMs"]} ms, {node["status"]})'


tree = []
if traces:
    detail = get("/api/traces/" + traces[0]["traceId"])["data"]
    tree = list(flatten(detail["tree"]))
print(json.dumps({"errorTraces": [t["traceId"] for t in traces], "pages": pages, "newestTree": tree}, indent=2))
