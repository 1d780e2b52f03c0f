"""Kubernetes' naming rules, for warnings: names the API server would refuse never reach a real scheduler.

The rules are apimachinery's (k8s.io/apimachinery/pkg/util/validation/validation.go): most objects are
named by a DNS-1123 subdomain, namespaces by a DNS-1123 label; label keys are qualified names and label
values at most 63 characters of letters, digits, '-', '_' and '.'. The loader keeps such objects (a
simulation can still run) and says which rule the name breaks; `capacity.core.text.safe` shows the name.
"""

from __future__ import annotations

import re
from functools import lru_cache

from capacity.core.text import quoted

_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(_LABEL, re.ASCII)
_DNS1123_SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*", re.ASCII)
_QUALIFIED = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?", re.ASCII)

SUBDOMAIN_RULE = ("a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a "
                  "letter or digit, at most 253 characters")
LABEL_RULE = ("a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or "
              "digit, at most 63 characters")
LABEL_VALUE_RULE = ("a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a "
                    "letter or digit, or empty")
LABEL_KEY_RULE = ("a label key: an optional DNS-1123 subdomain prefix and '/', then at most 63 letters, "
                  "digits, '-', '_' or '.', starting and ending with a letter or digit")


def _why_not(name: str, rule: str, limit: int) -> str:
    """The first thing wrong with `name`, in a few words, and the rule."""
    if len(name) > limit:
        return f"{len(name)} characters, over {limit}; {rule}"
    if any(not ch.isprintable() for ch in name):
        return f"holds control characters; {rule}"
    if name != name.lower() and "label value" not in rule and "label key" not in rule:
        return f"has uppercase letters; {rule}"
    return rule


@lru_cache(maxsize=1 << 16)
def subdomain_problem(name: str) -> str | None:
    """Why `name` is not a valid object name (DNS-1123 subdomain), or None."""
    if len(name) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(name):
        return None
    return _why_not(name, SUBDOMAIN_RULE, 253)


@lru_cache(maxsize=1 << 16)
def label_problem(name: str) -> str | None:
    """Why `name` is not a valid namespace name (DNS-1123 label), or None."""
    if len(name) <= 63 and _DNS1123_LABEL.fullmatch(name):
        return None
    return _why_not(name, LABEL_RULE, 63)


@lru_cache(maxsize=1 << 16)
def label_value_problem(value: str) -> str | None:
    if value == "" or (len(value) <= 63 and _QUALIFIED.fullmatch(value)):
        return None
    return _why_not(value, LABEL_VALUE_RULE, 63)


@lru_cache(maxsize=1 << 16)
def label_key_problem(key: str) -> str | None:
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or subdomain_problem(prefix) is not None):
        return _why_not(key, LABEL_KEY_RULE, 253 + 1 + 63)
    if len(name) <= 63 and _QUALIFIED.fullmatch(name):
        return None
    return _why_not(name, LABEL_KEY_RULE, 63)


def invalid(kind_of_name: str, name: str, why: str) -> str:
    """The warning's text: the name, escaped, and what is wrong with it."""
    return (f"{quoted(name[:80])}{'...' if len(name) > 80 else ''} is not a valid Kubernetes {kind_of_name} "
            f"({why}); the API server would refuse it, so a real scheduler never sees it; simulated as given")
