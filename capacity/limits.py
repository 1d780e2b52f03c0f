"""Limits on what the engine reads, so that hostile or accidental input fails fast with a clear message.

* Size: an input larger than ``max_input_bytes()`` (50 MB unless ``CAPACITY_MAX_INPUT_MB`` says
  otherwise; the dashboard's ``server.maxUploadSize`` is the same 50 MB) is refused before parsing.
* YAML structure: read with a *safe* loader only (plain data: no tags that build Python objects), and
  checked on PyYAML's event stream before any object is built:

  - nesting deeper than ``MAX_DEPTH`` is refused (libyaml's composer recurses in C: a few hundred
    kilobytes of ``[`` would otherwise crash the process with a segmentation fault);
  - aliases that would expand to more than ``MAX_ALIAS_EXPANSION`` nodes ("billion laughs", merge-key
    bombs) and aliases to a collection that contains them (recursive data) are refused: the loader
    itself shares aliased objects, but the reader walks them, and ``<<`` merges copy them for real;
  - a key repeated in one mapping is refused: ``kubectl apply`` rejects such a file, while PyYAML would
    silently keep the last value.

  Plain text (no anchors, aliases, tags or merge keys: what ``kubectl get -o yaml`` writes) is read in
  one pass over the same events by ``plain_load_all``, which builds the data while it applies the depth
  and repeated-key limits; anything else falls back to the check above, then PyYAML's loader.

Everything here raises ``capacity.errors.InputError`` naming the source and the line and column.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import ScalarNode

from capacity.errors import InputError

try:  # libyaml's C parser is several times faster on large dumps; same safe semantics.
    _BASE_LOADER: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BASE_LOADER = yaml.SafeLoader


class KubeYamlLoader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader, resolving plain scalars the way Kubernetes' YAML reader does.

    kubectl and the API server read YAML with sigs.k8s.io/yaml, which decodes with (a fork of) gopkg.in/yaml.v2
    and converts to JSON. Its resolver (goyaml.v2 resolve.go) differs from PyYAML's YAML 1.1 one:

    * no base-60 numbers: ``cpu: 1:30`` is the string "1:30" (an invalid quantity), not 90, and
      ``1:30.5`` is not 5430.5;
    * booleans: yes/no/on/off/true/false (any of three casings) are booleans in both, so a label value
      ``yes`` arrives as "true" (what sigs.k8s.io/yaml makes of a boolean in a string field); goyaml.v2 also
      takes a lone ``y``/``n`` as a boolean, kept a string here: the API server refuses a boolean name,
      and every scenario naming a node ``n`` would stop loading for no scheduling difference;
    * octal ``0755``, ``0x1F``, ``0b101`` and ``1_000`` read alike in both (493, 31, 5, 1000).
    """


def _kube_resolvers() -> None:
    base = _BASE_LOADER.yaml_implicit_resolvers
    drop = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
    KubeYamlLoader.yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in pairs if tag not in drop] for ch, pairs in base.items()}
    KubeYamlLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
        list("yYnNtTfFoO"))
    KubeYamlLoader.add_implicit_resolver(
        "tag:yaml.org,2002:int",
        re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
        list("-+0123456789"))
    KubeYamlLoader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
                   r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        list("-+0123456789."))


def _construct_int(loader: Any, node: ScalarNode) -> Any:
    """An integer; one too long for a float64 stays text, as goyaml.v2 leaves it (ParseInt, ParseUint and
    ParseFloat all fail), instead of Python's int() refusing it past 4,300 digits (ValueError)."""
    digits = node.value.replace("_", "").lstrip("+-")
    if len(digits) > 310 and not digits.startswith(("0x", "0b", "0o")) and not (digits[:1] == "0" and digits.isdigit()):
        return node.value
    return _BASE_LOADER.construct_yaml_int(loader, node)


_kube_resolvers()
KubeYamlLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
#: The one loader every input goes through (libyaml's C parser where available).
SAFE_LOADER: Any = KubeYamlLoader

DEFAULT_MAX_INPUT_MB = 50
MAX_INPUT_ENV = "CAPACITY_MAX_INPUT_MB"
#: Kubernetes objects nest about 15 levels deep (a pod's affinity terms); 100 leaves ample room.
MAX_DEPTH = 100
#: Nodes that aliases may add to a YAML stream once expanded: this many, plus ten per node written out
#: (a bomb expands exponentially, a large file reusing a few anchors only linearly).
MAX_ALIAS_EXPANSION = 1_000_000

_MB = 1_000_000


def max_input_bytes() -> int:
    """The input size limit in bytes: ``CAPACITY_MAX_INPUT_MB`` (a positive number) or 50 MB."""
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB * _MB
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not mb > 0 or mb == float("inf"):
        raise InputError(MAX_INPUT_ENV, "", f"must be a positive number of megabytes, got {raw!r}")
    return int(mb * _MB)


def _mb(nbytes: int) -> str:
    return f"{nbytes / _MB:.1f} MB" if nbytes >= _MB // 10 else f"{nbytes} bytes"


def size_error(source: str, nbytes: int, limit: int, at_least: bool = False) -> InputError:
    more = "more than " if at_least else ""
    return InputError(source, "", f"is {more}{_mb(nbytes)}, larger than the {_mb(limit)} input limit "
                      f"(set {MAX_INPUT_ENV} to raise it)")


def check_text_size(text: str, source: str, limit: int | None = None) -> None:
    """Refuse text whose UTF-8 encoding is larger than the limit."""
    limit = max_input_bytes() if limit is None else limit
    if len(text) > limit:  # at least one byte per character
        raise size_error(source, len(text), limit, at_least=True)
    if 4 * len(text) > limit:  # only then can the encoded size exceed the limit
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise size_error(source, size, limit)


def read_text_file(path: str, limit: int | None = None) -> str:
    """A UTF-8 text file, refused with an InputError if unreadable, binary or over the size limit.

    Reads at most limit + 1 bytes, so /dev/zero or a 10 GB file cost no more than the limit.
    """
    limit = max_input_bytes() if limit is None else limit
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = len(data)
        raise size_error(path, max(size, len(data)), limit, at_least=size <= limit)
    if b"\x00" in data:
        raise InputError(path, "", "contains NUL bytes: a binary file, not YAML text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start + 1}", "is not a UTF-8 text file (binary data?)") from None


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def yaml_error(exc: yaml.YAMLError, source: str, text: str = "") -> InputError:
    """One line naming the source and position for anything PyYAML refuses."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow: no mark, a position
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        return InputError(source, f"line {line}, column {column}", f"malformed YAML: {exc.reason} "
                          f"(#x{char:04x}); binary data?")
    if isinstance(exc, yaml.constructor.ConstructorError) and "constructor for the tag" in str(problem):
        problem = (f"{problem.split('for the tag')[-1].strip()} is not allowed: only plain YAML data "
                   "(mappings, lists, strings, numbers, booleans) is read")
    elif context and context not in str(problem):
        problem = f"{problem} ({context})"
    return InputError(source, _where(mark), f"malformed YAML: {problem}")


def check_yaml_structure(text: str, source: str, max_depth: int = MAX_DEPTH,
                         max_expansion: int = MAX_ALIAS_EXPANSION) -> None:
    """Walk PyYAML's event stream (iterative, no objects built) and refuse bombs before loading.

    Counts, for every anchored collection, how many nodes it stands for once aliases are expanded;
    an alias to a collection still open (recursive data) has no finite size and is refused.
    """
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [anchor, node count, keys seen or None, expecting a key]
    expansion = 0
    events = 0
    try:
        for ev in yaml.parse(text, Loader=SAFE_LOADER):
            events += 1
            cls = type(ev)
            if cls is ScalarEvent or cls is AliasEvent:
                if cls is AliasEvent:
                    size = sizes.get(ev.anchor)
                    if size is None:
                        if any(frame[0] == ev.anchor for frame in stack):
                            raise InputError(source, _where(ev.start_mark), f"alias *{ev.anchor} refers to a "
                                             "collection that contains it (recursive YAML data); refused")
                        continue  # undefined alias: the loader reports it
                    expansion += size
                    if expansion > max_expansion + 10 * events:
                        raise InputError(source, _where(ev.start_mark), "YAML aliases expand to more than "
                                         f"{max_expansion:,} nodes (an 'anchor bomb'); refused")
                else:
                    size = 1
                    if ev.anchor:
                        sizes[ev.anchor] = 1
                if stack:
                    frame = stack[-1]
                    frame[1] += size
                    if frame[2] is not None:
                        if frame[3] and cls is ScalarEvent:
                            key = ev.value
                            if key in frame[2] and key != "<<":
                                raise InputError(source, _where(ev.start_mark), f"mapping key {key!r} appears "
                                                 "more than once in the same mapping (kubectl rejects this; "
                                                 "YAML loaders silently keep the last one)")
                            frame[2].add(key)
                        frame[3] = not frame[3]
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if stack:
                    parent = stack[-1]
                    if parent[2] is not None:
                        parent[3] = not parent[3]
                if len(stack) >= max_depth:
                    raise InputError(source, _where(ev.start_mark), f"YAML nested more than {max_depth} levels "
                                     "deep; refused (Kubernetes objects need far fewer)")
                stack.append([ev.anchor, 1, set() if cls is MappingStartEvent else None, True])
                if ev.anchor:
                    sizes.pop(ev.anchor, None)  # a redefined anchor is open again
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                anchor, size, _keys, _expect = stack.pop()
                if anchor:
                    sizes[anchor] = size
                if stack:
                    stack[-1][1] += size
            elif cls is DocumentEndEvent:
                sizes.clear()  # anchors do not cross documents
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(getattr(exc, "problem", "")):
            # PyYAML >= 6.0.4 stops at 1,000 levels itself, and its scanner may read that far ahead of
            # the events walked here: the same refusal, where PyYAML stopped.
            mark = getattr(exc, "problem_mark", None)
            raise InputError(source, _where(mark), f"YAML nested more than {max_depth} levels deep; refused "
                             "(Kubernetes objects need far fewer)") from None
        raise yaml_error(exc, source, text) from None


_TAG = "tag:yaml.org,2002:"
_STR_TAG = _TAG + "str"
#: Scalar types whose constructed value depends on the scalar's text alone (immutable results).
_PLAIN_TAGS = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "timestamp"))
_NOT_PLAIN = object()


class _NotPlain(Exception):
    """The text uses something the one-pass reader leaves to PyYAML (anchors, tags, merges, errors...)."""


def _plain_scalar(loader: Any, value: str) -> Any:
    """What SafeLoader builds from an untagged plain scalar, or _NOT_PLAIN (e.g. '<<', '=')."""
    tag = loader.resolve(ScalarNode, value, (True, False))
    if tag == _STR_TAG:
        return value
    if tag not in _PLAIN_TAGS:
        return _NOT_PLAIN
    try:
        return loader.yaml_constructors[tag](loader, ScalarNode(tag, value))
    except Exception:  # noqa: BLE001 - the full loader reports it
        return _NOT_PLAIN


def plain_load_all(text: str, max_depth: int = MAX_DEPTH) -> list[Any] | None:
    """Every document of a plain YAML stream in one pass over libyaml's events, or None.

    "Plain" is what Kubernetes dumps are: no anchors, aliases or tags, no merge keys, no collection
    keys, no key twice in one mapping, nesting under ``max_depth``, no syntax error. For such text the
    result equals ``yaml.load_all(text, Loader=SAFE_LOADER)`` and ``check_yaml_structure`` has nothing to
    refuse; anything else returns None and the caller takes the checked path, which reports it. This
    reads the text once instead of twice (structure check, then load) and builds no node graph.
    """
    if SAFE_LOADER.yaml_path_resolvers:  # pragma: no cover - nobody registers path resolvers
        return None
    try:
        loader = SAFE_LOADER(text)
    except Exception:  # noqa: BLE001 - e.g. unencodable text: the checked path reports it
        return None
    cache: dict[str, Any] = {}
    docs: list[Any] = []
    # One frame per open collection: [container, keys seen (None for a list), key pending, pending key].
    stack: list[list[Any]] = []
    top: list[Any] | None = None
    get = loader.get_event
    try:
        while True:
            ev = get()
            cls = type(ev)
            if cls is ScalarEvent:
                if ev.anchor is not None or ev.tag is not None:
                    raise _NotPlain
                value = ev.value
                if ev.implicit[0]:
                    obj = cache.get(value, _NOT_PLAIN)
                    if obj is _NOT_PLAIN:
                        obj = _plain_scalar(loader, value)
                        if obj is _NOT_PLAIN:
                            raise _NotPlain
                        cache[value] = obj
                else:
                    obj = value
                if top is None:
                    docs.append(obj)
                elif top[1] is None:
                    top[0].append(obj)
                elif top[2]:
                    keys = top[1]
                    if value in keys:
                        raise _NotPlain
                    keys.add(value)
                    top[2] = False
                    top[3] = obj
                else:
                    top[0][top[3]] = obj
                    top[2] = True
                continue
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                if ev.anchor is not None or ev.tag is not None or len(stack) + (top is not None) >= max_depth:
                    raise _NotPlain  # (the open collections are `stack` and `top`)
                if top is not None:
                    if top[1] is not None and top[2]:
                        raise _NotPlain  # a collection as a mapping key
                    stack.append(top)
                top = [{}, set(), True, None] if cls is MappingStartEvent else [[], None, True, None]
                continue
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                obj = top[0]  # type: ignore[index]
                top = stack.pop() if stack else None
                if top is None:
                    docs.append(obj)
                elif top[1] is None:
                    top[0].append(obj)
                else:
                    top[0][top[3]] = obj
                    top[2] = True
                continue
            if cls is StreamEndEvent:
                return docs
            if cls is not DocumentStartEvent and cls is not DocumentEndEvent and cls is not StreamStartEvent:
                raise _NotPlain  # an alias (or anything unforeseen)
            # StreamStart, DocumentStart, DocumentEnd: nothing to build.
    except Exception:  # noqa: BLE001 - _NotPlain, a YAMLError...: the checked path decides and reports
        return None
    finally:
        loader.dispose()


def safe_load_all(text: str, source: str = "input", limit: int | None = None) -> list[Any]:
    """Every document of a YAML stream as plain data, after the size and structure checks."""
    check_text_size(text, source, limit)
    if "\x00" in text:
        raise InputError(source, "", "contains NUL bytes: a binary file, not YAML text")
    if text.lstrip()[:1] in ("{", "["):  # `kubectl get -o json`: a List, or a stream of objects
        return json_load_all(text, source)
    docs = plain_load_all(text)
    if docs is not None:
        return docs
    check_yaml_structure(text, source)
    try:
        return list(yaml.load_all(text, Loader=SAFE_LOADER))
    except yaml.YAMLError as exc:
        raise yaml_error(exc, source, text) from None
    except (RecursionError, MemoryError):  # pragma: no cover - the structure check should prevent these
        raise InputError(source, "", "YAML too large or too deeply nested to read") from None


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a repeated key is refused, as the YAML path refuses it (PyYAML's
    duplicate-key check), rather than silently keeping the last one as Go's encoding/json does."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"key {dup!r} appears more than once in the same object (kubectl's strict field "
                         "validation rejects this; a plain JSON decoder silently keeps the last one)")
    return obj


def _json_depth_ok(text: str, max_depth: int) -> tuple[bool, int]:
    """Nesting of brackets outside strings (one linear scan, no objects built): (ok, offset of the first
    bracket past max_depth)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        ch = m.group()[0]
        if ch in "[{":
            depth += 1
            if depth > max_depth:
                return False, m.start()
        elif ch in "]}":
            depth -= 1
    return True, -1


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def json_load_all(text: str, source: str = "input", max_depth: int = MAX_DEPTH) -> list[Any]:
    """Every value of a JSON text or a stream of concatenated JSON values (what `kubectl get -o json`
    prints, one object per call), as plain data; errors name the line and column."""
    ok, at = _json_depth_ok(text, max_depth)
    if not ok:
        raise InputError(source, _line_col(text, at), f"JSON nested more than {max_depth} levels deep; refused "
                         "(Kubernetes objects need far fewer)")
    decoder = json.JSONDecoder(object_pairs_hook=_refuse_duplicates)
    docs: list[Any] = []
    pos, end = 0, len(text)
    ws = re.compile(r"\s*")
    try:
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        while pos < end:
            doc, pos = decoder.raw_decode(text, pos)
            docs.append(doc)
            pos = ws.match(text, pos).end()  # type: ignore[union-attr]
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno}, column {exc.colno}", f"malformed JSON: {exc.msg}") from None
    except ValueError as exc:  # a duplicate key
        raise InputError(source, f"value starting at {_line_col(text, pos)}", str(exc)) from None
    except RecursionError:  # pragma: no cover - the depth check should prevent this
        raise InputError(source, "", "JSON too deeply nested to read") from None
    return docs


def safe_load(text: str, source: str = "input", limit: int | None = None) -> Any:
    """A single-document YAML text (e.g. volcano-scheduler.conf) as plain data; empty text is None."""
    docs = safe_load_all(text, source, limit)
    docs = [d for d in docs if d is not None] or [None]
    if len(docs) > 1:
        raise InputError(source, "", f"expected one YAML document, found {len(docs)}")
    return docs[0]
