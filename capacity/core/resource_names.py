"""Which resource names Volcano keeps: Kubernetes' own naming rules, not Volcano's.

``NewResource`` (``pkg/scheduler/api/resource_info.go:L87-124 @ed72c7c8``) keeps a name other than cpu,
memory and pods only if ``v1helper.IsScalarResourceName`` says so; that rule and the qualified-name check
under it live in Kubernetes (``pkg/apis/core/v1/helper/helpers.go`` and apimachinery's
``validation.IsQualifiedName``), so they sit here rather than beside the ``Resource`` they feed.
"""

from __future__ import annotations

import re

__all__ = ["is_scalar_resource_name"]

_QUALIFIED_NAME_RE = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN_RE = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")


def _is_qualified_name(name: str) -> bool:
    """apimachinery ``validation.IsQualifiedName``: ``[dns-subdomain/]name`` with name <= 63 chars."""
    parts = name.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
            return False
    elif len(parts) != 1:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME_RE.fullmatch(name) is not None


def _is_prefixed_native(name: str) -> bool:
    return "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: domain-prefixed, not kubernetes.io, not "requests.", quota-valid."""
    if "/" not in name or _is_prefixed_native(name) or name.startswith("requests."):
        return False
    return _is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    """Kubernetes ``IsScalarResourceName``: extended, ``hugepages-*``, ``*kubernetes.io/*`` or
    ``attachable-volumes-*`` names. Plain names such as ``requests.cpu`` or ``services`` are not."""
    return (
        _is_extended(name)
        or name.startswith("hugepages-")
        or _is_prefixed_native(name)
        or name.startswith("attachable-volumes-")
    )
