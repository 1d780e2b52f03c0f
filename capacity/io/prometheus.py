"""The scheduler's `volcano_queue_*` gauges, from a text scrape of its metrics endpoint or a Prometheus server.

Names, labels and units are those of pkg/scheduler/metrics/queue.go:L28-192 @ed72c7c8 (subsystem `volcano`,
label `queue_name`; the *_scalar_resources gauges also carry `resource`): millicores, bytes, and for other
resources the scheduler's own scalar units (milli-units; `pods` a count), the same as the engine's.
Both readers give {queue: {(engine figure, resource): value}}; `resource` is "" for the share.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from capacity.core.errors import InputError
from capacity.core.text import quoted

_FIGURES = {"allocated": "allocated", "request": "request", "deserved": "deserved", "capacity": "capability",
            "real_capacity": "realCapability", "inqueue": "inqueue"}
#: gauge name -> (engine figure, resource; None: read from the `resource` label)
METRICS: dict[str, tuple[str, str | None]] = {"volcano_queue_share": ("share", "")}
for _part, _figure in _FIGURES.items():
    METRICS[f"volcano_queue_{_part}_milli_cpu"] = (_figure, "cpu")
    METRICS[f"volcano_queue_{_part}_memory_bytes"] = (_figure, "memory")
    METRICS[f"volcano_queue_{_part}_scalar_resources"] = (_figure, None)

Key = tuple[str, str]
Scrape = dict[str, dict[Key, float]]

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\s+(\S+)')
_LABEL = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
QUERY = '{__name__=~"volcano_queue_.*"}'


def _key(metric: str, labels: dict[str, str]) -> tuple[str, Key] | None:
    """(queue, (figure, resource)) of one sample, None for a gauge this check does not read."""
    figure, resource = METRICS.get(metric, ("", ""))
    queue = labels.get("queue_name")
    if not figure or queue is None:
        return None
    if resource is None:
        resource = labels.get("resource", "")
        if not resource:
            return None
    return queue, (figure, resource)


def parse_text(text: str) -> Scrape:
    """The queue gauges of a Prometheus text exposition (a scrape of the scheduler's /metrics)."""
    out: Scrape = {}
    for raw in text.splitlines():
        m = _SAMPLE.match(raw.strip())
        if not m or m.group(1) not in METRICS:
            continue
        labels = {k: re.sub(r'\\[\\"n]', lambda e: _UNESCAPE[e.group(0)], v) for k, v in _LABEL.findall(m.group(2))}
        found = _key(m.group(1), labels)
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        if found and not math.isnan(value):
            out.setdefault(found[0], {})[found[1]] = value
    return out


def query(url: str, timeout: float = 10) -> Scrape:
    """The queue gauges as a Prometheus server has them now (HTTP API `/api/v1/query`, an instant vector).

    Where several series give one gauge (scheduler replicas, scrape jobs), the latest sample is kept.
    """
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InputError("--prometheus", "", f"{quoted(url)} is not an http(s) URL of a Prometheus server")
    endpoint = url.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode({"query": QUERY})
    body = _get(endpoint, url, timeout)
    try:
        doc = json.loads(body)
    except ValueError:
        raise InputError("--prometheus", "", f"{quoted(url)} did not answer with JSON (is it a Prometheus "
                         "server's base URL?)") from None
    if not isinstance(doc, dict) or doc.get("status") != "success":
        why = doc.get("error") if isinstance(doc, dict) else None
        raise InputError("--prometheus", "", f"the query failed: {quoted(str(why or doc)[:200])}")
    data = doc.get("data") or {}
    if not isinstance(data, dict) or data.get("resultType") != "vector" or not isinstance(data.get("result"), list):
        raise InputError("--prometheus", "", "the answer is not an instant vector (data.resultType)")
    out: Scrape = {}
    stamps: dict[tuple[str, Key], float] = {}
    for series in data["result"]:
        labels = series.get("metric") if isinstance(series, dict) else None
        value = series.get("value") if isinstance(series, dict) else None
        if not isinstance(labels, dict) or not isinstance(value, list) or len(value) != 2:
            continue
        found = _key(str(labels.get("__name__", "")), {str(k): str(v) for k, v in labels.items()})
        try:
            stamp, number = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            continue
        if found is None or math.isnan(number) or stamps.get(found, -math.inf) > stamp:
            continue
        stamps[found] = stamp
        out.setdefault(found[0], {})[found[1]] = number
    return out


def _get(endpoint: str, url: str, timeout: float) -> str:
    req = urllib.request.Request(endpoint, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (http(s) checked above)
            return resp.read(64 * 1024 * 1024).decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        detail = ""
        with contextlib.suppress(ValueError, AttributeError):
            detail = str(json.loads(exc.read(65536)).get("error") or "")
        raise InputError("--prometheus", "", f"{quoted(url)} answered {exc.code} {exc.reason}"
                         f"{': ' + quoted(detail[:200]) if detail else ''}") from None
    except TimeoutError:
        raise InputError("--prometheus", "", f"{quoted(url)} did not answer within {timeout:g}s") from None
    except urllib.error.URLError as exc:
        reason: Any = exc.reason
        if isinstance(reason, TimeoutError):
            raise InputError("--prometheus", "", f"{quoted(url)} did not answer within {timeout:g}s") from None
        raise InputError("--prometheus", "", f"{quoted(url)} is unreachable ({quoted(str(reason))})") from None
    except OSError as exc:
        raise InputError("--prometheus", "", f"{quoted(url)} is unreachable ({type(exc).__name__})") from None
