"""Limits on what the engine reads, so that hostile or accidental input fails fast with a clear message.

* Size: an input larger than ``max_input_bytes()`` (50 MB unless ``CAPACITY_MAX_INPUT_MB`` says
  otherwise; the dashboard's ``server.maxUploadSize`` is the same 50 MB) is refused before parsing.
* YAML structure: read with a *safe* loader only (plain data: no tags that build Python objects), in ONE
  pass over libyaml's event stream (``read_yaml_all``): the data is built while a guard checks it, so that
  nothing is parsed twice and nothing hostile is built:

  - nesting deeper than ``MAX_DEPTH`` is refused (libyaml's composer recurses in C: a few hundred
    kilobytes of ``[`` would otherwise crash the process with a segmentation fault; the pass composes
    nothing, it builds the data from the events);
  - aliases that would expand to more than ``MAX_ALIAS_EXPANSION`` nodes ("billion laughs", merge-key
    bombs) and aliases to a collection that contains them (recursive data) are refused at the alias: the
    reader shares aliased objects, but the engine walks them, and ``<<`` merges copy them for real;
  - a key repeated in one mapping is refused: ``kubectl apply`` rejects such a file, while PyYAML would
    silently keep the last value.

  The rare valid YAML the pass does not build itself (``!!set``, a collection as a key, an undefined
  alias ...) is loaded by PyYAML once the pass has guarded the whole stream.
* JSON (``kubectl get -o json``: a List or a stream of objects), recognised by its first character, is
  read by ``json_load_all`` under the same depth and repeated-key rules.

Everything here raises ``capacity.core.errors.InputError`` naming the source and the line and column.
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
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from capacity.core.errors import InputError

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


_TAG = "tag:yaml.org,2002:"
_STR_TAG = _TAG + "str"
_MERGE_TAG = _TAG + "merge"
_VALUE_TAG = _TAG + "value"
_COLLECTION_TAGS = {MappingStartEvent: _TAG + "map", SequenceStartEvent: _TAG + "seq"}
#: Scalar types whose constructed value depends on the scalar's text alone (immutable results).
_PLAIN_TAGS = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "timestamp"))
_UNBUILT = object()


class _MergeSlot:
    """Where the value of one ``<<`` waits in its mapping until the mapping ends and the merge is applied."""

    __slots__ = ()


class _Exotic(Exception):
    """Valid YAML the one pass does not build itself (a ``!!set``, a collection as a key, a merge of a scalar,
    an undefined alias ...): PyYAML's loader builds (or refuses) it once the pass has checked the stream."""


def _plain_scalar(loader: Any, value: str) -> Any:
    """What SafeLoader builds from an untagged plain scalar, or _UNBUILT when it is not plain data ('<<', '=')."""
    tag = loader.resolve(ScalarNode, value, (True, False))
    if tag == _STR_TAG:
        return value
    if tag not in _PLAIN_TAGS:
        return _UNBUILT
    return loader.yaml_constructors[tag](loader, ScalarNode(tag, value))


def _scalar(loader: Any, ev: Any) -> Any:
    """A scalar as PyYAML's composer and constructor build it (tags, '!', quoted text): the slow path."""
    tag = ev.tag
    if tag is None or tag == "!":
        tag = loader.resolve(ScalarNode, ev.value, ev.implicit)
    node = ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:  # e.g. 2001-13-45: a timestamp the resolver takes, datetime refuses
        raise yaml.constructor.ConstructorError(None, None, f"invalid {tag.removeprefix(_TAG)} {ev.value!r} "
                                                f"({exc})", ev.start_mark) from None


def _merged(own: dict[Any, Any], slots: list[_MergeSlot]) -> dict[Any, Any]:
    """A mapping with its ``<<`` merges applied as PyYAML's ``flatten_mapping`` does: the merged mappings'
    keys first (of a list of mappings, the earlier one wins), the mapping's own keys over them."""
    merged: dict[Any, Any] = {}
    for slot in slots:
        value = own.pop(slot)
        if type(value) is dict:
            merged.update(value)
        elif type(value) is list and all(type(v) is dict for v in value):
            for v in reversed(value):
                merged.update(v)
        else:
            raise _Exotic  # PyYAML's constructor words the refusal
    merged.update(own)
    return merged


def _in_merge_value(stack: list[list[Any]], top: list[Any] | None) -> bool:
    """Whether the node being read is (inside) the value of a ``<<``: PyYAML's ``flatten_mapping`` treats
    those before constructing anything (it ignores a merged mapping's tag, refuses a merged scalar first)."""
    if top is not None and top[1] is not None and not top[2] and top[3].__class__ is _MergeSlot:
        return True
    return any(f[1] is not None and f[3].__class__ is _MergeSlot for f in stack)


def _trouble(exc: yaml.YAMLError, deferred: yaml.YAMLError | None, exotic: bool,
             stack: list[list[Any]], top: list[Any] | None) -> tuple[yaml.YAMLError | None, bool]:
    """(the error to raise at the end, whether to leave the stream to PyYAML) after a constructor error.

    The only one in the stream is the one PyYAML raises too, at the same node: raised once the guard has
    seen the rest. With two, PyYAML's construction order (shallow values before deeper ones) decides, and
    inside a merge value its flattening does: those streams go to PyYAML."""
    if deferred is not None or _in_merge_value(stack, top):
        return deferred, True
    return exc, exotic


def _depth_error(source: str, mark: Any, max_depth: int) -> InputError:
    return InputError(source, _where(mark), f"YAML nested more than {max_depth} levels deep; refused "
                      "(Kubernetes objects need far fewer)")


def _one_pass(text: str, source: str, max_depth: int, max_expansion: int, build: bool) -> list[Any] | None:
    """Every document of a YAML stream, read in ONE pass over libyaml's events: the data is built while the
    structure guard counts (no second parse, no node graph).

    The guard refuses, where it meets them: nesting deeper than ``max_depth``; aliases that expand to more
    than ``max_expansion`` nodes plus ten per event read (bombs: every anchored collection's size is known
    when it closes, every alias adds it); an alias to a collection still open (recursive data); a key
    written twice in one mapping (but ``<<``). Syntax errors are raised as they are met, in the same order.

    Built alike to ``yaml.load_all(text, Loader=SAFE_LOADER)``: anchors and aliases (shared objects, as
    PyYAML shares them), ``<<`` merges, explicit tags (through PyYAML's own constructors). A tag no safe
    constructor knows (``!!python/...``, ``!Ref``) is refused with PyYAML's words, after the guard has seen
    the rest of the stream (as when the check ran first). Returns None for the rare valid YAML built
    otherwise (``_Exotic``), once the whole stream has passed the guard: the caller hands that to PyYAML.
    With ``build`` false only the guard runs. (A node that fails is built as None: the data is not returned.)
    """
    try:
        loader = SAFE_LOADER(text)
    except UnicodeEncodeError:
        raise InputError(source, "", "contains characters that are not valid UTF-8 (lone surrogates)") from None
    docs: list[Any] = []
    cache: dict[str, Any] = {}
    # One frame per open collection: [container, keys seen (None for a list), a key expected next (mappings),
    # the pending key, anchor, nodes counted when it opened, merge slots or None]. `top` is the innermost.
    stack: list[list[Any]] = []
    top: list[Any] | None = None
    sizes: dict[str, int] = {}  # the guard: closed anchors of this document -> nodes each stands for
    anchored: dict[str, Any] = {}  # anchor -> the object built for it
    events = nodes = expansion = 0
    exotic = False
    deferred: yaml.YAMLError | None = None  # the first tag no safe constructor knows: raised at the end
    get = loader.get_event
    try:
        while True:
            ev = get()
            events += 1
            cls = type(ev)
            if cls is ScalarEvent:
                nodes += 1
                value = ev.value
                obj: Any = None
                if build:
                    if ev.tag is None and ev.implicit[0]:
                        obj = cache.get(value, _UNBUILT)
                        if obj is _UNBUILT:
                            try:
                                obj = _plain_scalar(loader, value)
                            except (ValueError, OverflowError):
                                obj = _UNBUILT
                            if obj is _UNBUILT:  # '<<', '=', a timestamp datetime refuses: the slow path
                                if top is not None and top[2] and loader.resolve(
                                        ScalarNode, value, (True, False)) in (_MERGE_TAG, _VALUE_TAG):
                                    obj = _MergeSlot() if value == "<<" else value
                                else:
                                    try:
                                        obj = _scalar(loader, ev)
                                    except yaml.YAMLError as exc:
                                        obj = None
                                        deferred, exotic = _trouble(exc, deferred, exotic, stack, top)
                            else:
                                cache[value] = obj
                    elif ev.tag is None:
                        obj = value  # quoted, literal or folded: text
                    else:
                        try:
                            if ev.tag == _MERGE_TAG and top is not None and top[2]:
                                obj = _MergeSlot()
                            else:
                                obj = _scalar(loader, ev)
                        except yaml.YAMLError as exc:
                            obj = None
                            deferred, exotic = _trouble(exc, deferred, exotic, stack, top)
                if ev.anchor is not None:
                    if ev.anchor in sizes or ev.anchor in anchored:
                        exotic = True  # a second anchor of one name: PyYAML's composer refuses it
                    sizes[ev.anchor] = 1
                    anchored[ev.anchor] = obj
                if top is None:
                    if build:
                        docs.append(obj)
                elif top[1] is None:
                    if build:
                        top[0].append(obj)
                elif top[2]:
                    keys = top[1]
                    if value in keys and value != "<<":
                        raise InputError(source, _where(ev.start_mark), f"mapping key {value!r} appears more than "
                                         "once in the same mapping (kubectl rejects this; YAML loaders silently "
                                         "keep the last one)")
                    keys.add(value)
                    top[2] = False
                    if build:
                        if obj.__class__ is _MergeSlot:
                            if top[6] is None:
                                top[6] = []
                            top[6].append(obj)
                        top[3] = obj
                else:
                    top[2] = True
                    if build:
                        top[0][top[3]] = obj
                continue
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                nodes += 1
                if top is not None:
                    if top[1] is not None:
                        if top[2]:
                            exotic, build = True, False  # a collection as a mapping key
                        top[2] = not top[2]
                    stack.append(top)
                if len(stack) >= max_depth:
                    raise _depth_error(source, ev.start_mark, max_depth)
                anchor = ev.anchor
                if anchor is not None:
                    if anchor in sizes or anchor in anchored:
                        exotic = True
                    sizes.pop(anchor, None)  # open: an alias to it now is recursive
                    anchored[anchor] = None
                tag = ev.tag
                if tag is not None and tag != "!" and tag != _COLLECTION_TAGS[cls] and build:
                    if tag in loader.yaml_constructors:
                        exotic, build = True, False  # !!set, !!omap, !!pairs ...: PyYAML builds those
                    else:  # its children are still built: an error among them is a second one
                        deferred, exotic = _trouble(yaml.constructor.ConstructorError(
                            None, None, f"could not determine a constructor for the tag {tag!r}", ev.start_mark),
                            deferred, exotic, stack, top)
                if cls is MappingStartEvent:
                    top = [{}, set(), True, None, anchor, nodes, None]
                else:
                    top = [[], None, False, None, anchor, nodes, None]
                continue
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = top
                obj = frame[0]  # type: ignore[index]
                if frame[6] is not None and build:  # type: ignore[index]
                    try:
                        obj = _merged(obj, frame[6])  # type: ignore[index]
                    except _Exotic:
                        exotic, build = True, False
                anchor = frame[4]  # type: ignore[index]
                if anchor is not None:
                    sizes[anchor] = nodes - frame[5] + 1  # type: ignore[index]
                    anchored[anchor] = obj
                top = stack.pop() if stack else None
                if build:
                    if top is None:
                        docs.append(obj)
                    elif top[1] is None:
                        top[0].append(obj)
                    else:
                        top[0][top[3]] = obj
                continue
            if cls is AliasEvent:
                anchor = ev.anchor
                size = sizes.get(anchor)
                if size is None:
                    if any(frame[4] == anchor for frame in (*stack, top) if frame is not None):
                        raise InputError(source, _where(ev.start_mark), f"alias *{anchor} refers to a "
                                         "collection that contains it (recursive YAML data); refused")
                    exotic, build = True, False  # undefined: PyYAML's composer reports it
                    continue
                expansion += size
                if expansion > max_expansion + 10 * events:
                    raise InputError(source, _where(ev.start_mark), "YAML aliases expand to more than "
                                     f"{max_expansion:,} nodes (an 'anchor bomb'); refused")
                nodes += size
                obj = anchored.get(anchor)
                if top is None:
                    if build:
                        docs.append(obj)
                elif top[1] is None:
                    if build:
                        top[0].append(obj)
                elif top[2]:
                    top[2] = False
                    if build:
                        if type(obj) in (dict, list):
                            exotic, build = True, False  # an unhashable key: PyYAML's constructor words it
                        top[3] = obj
                else:
                    top[2] = True
                    if build:
                        top[0][top[3]] = obj
                continue
            if cls is DocumentEndEvent:
                sizes.clear()  # anchors do not cross documents
                anchored.clear()
            elif cls is StreamEndEvent:
                break
            # StreamStart, DocumentStart, DocumentEnd: nothing to build.
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(getattr(exc, "problem", "")):
            # PyYAML >= 6.0.4 stops at 1,000 levels itself, and its scanner may read that far ahead of the
            # events walked here: the same refusal, where PyYAML stopped.
            raise _depth_error(source, getattr(exc, "problem_mark", None), max_depth) from None
        raise yaml_error(exc, source, text) from None
    finally:
        loader.dispose()
    if exotic:
        return None
    if deferred is not None:
        raise yaml_error(deferred, source, text)
    return docs


def read_yaml_all(text: str, source: str = "input", max_depth: int = MAX_DEPTH,
                  max_expansion: int = MAX_ALIAS_EXPANSION) -> list[Any]:
    """Every document of a YAML stream as plain data, guarded and built in one pass (`_one_pass`); the rare
    valid YAML that pass leaves to PyYAML is loaded by it once the guard has passed the whole stream."""
    docs = _one_pass(text, source, max_depth, max_expansion, build=True)
    if docs is not None:
        return docs
    try:
        return list(yaml.load_all(text, Loader=SAFE_LOADER))
    except yaml.YAMLError as exc:
        raise yaml_error(exc, source, text) from None
    except (ValueError, OverflowError) as exc:  # a value the resolver takes and Python refuses (2001-13-45)
        raise InputError(source, "", f"malformed YAML: {exc}") from None
    except (RecursionError, MemoryError):  # pragma: no cover - the guard should prevent these
        raise InputError(source, "", "YAML too large or too deeply nested to read") from None


#: Brackets, then a quoted string: how JSON starts (flow-style YAML has `{kind: ...`).
_QUOTED_START = re.compile(r'[\s\[{]*"')


def safe_load_all(text: str, source: str = "input", limit: int | None = None) -> list[Any]:
    """Every document of a YAML stream (or `kubectl get -o json` output) as plain data, after the size
    limit; YAML through the one-pass guarded reader (`read_yaml_all`)."""
    check_text_size(text, source, limit)
    if "\x00" in text:
        raise InputError(source, "", "contains NUL bytes: a binary file, not YAML text")
    if text.lstrip()[:1] in ("{", "["):  # `kubectl get -o json`: a List, or a stream of objects
        try:
            return json_load_all(text, source)
        except InputError as json_error:
            if not json_error.message.startswith("malformed JSON") or _QUOTED_START.match(text):
                raise  # nested too deep, a repeated key, or JSON by its quoted first key: as JSON
            try:  # not JSON: YAML written in flow style ({kind: Node, ...}) is still YAML
                return read_yaml_all(text, source)
            except InputError:
                raise json_error from None
    return read_yaml_all(text, source)


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


def _deeper_than(docs: list[Any], max_depth: int) -> bool:
    """Whether parsed JSON nests deeper than max_depth (containers only, no recursion)."""
    stack = [(d, 1) for d in docs if type(d) is dict or type(d) is list]
    while stack:
        x, depth = stack.pop()
        if depth > max_depth:
            return True
        depth += 1
        stack.extend((v, depth) for v in (x.values() if type(x) is dict else x) if type(v) is dict or type(v) is list)
    return False


def json_load_all(text: str, source: str = "input", max_depth: int = MAX_DEPTH) -> list[Any]:
    """Every value of a JSON text or a stream of concatenated JSON values (what `kubectl get -o json`
    prints, one object per call), as plain data; errors name the line and column.

    The C decoder reads first (it refuses nesting past Python's recursion limit by itself) and the depth
    is checked on the data; only a refused text is scanned for where it nests too deep, so that the depth
    refusal comes first as it would from a scan before parsing."""
    def too_deep() -> InputError | None:
        ok, at = _json_depth_ok(text, max_depth)
        return None if ok else InputError(source, _line_col(text, at), f"JSON nested more than {max_depth} levels "
                                          "deep; refused (Kubernetes objects need far fewer)")
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
        raise too_deep() or InputError(source, f"line {exc.lineno}, column {exc.colno}",
                                       f"malformed JSON: {exc.msg}") from None
    except ValueError as exc:  # a duplicate key
        raise too_deep() or InputError(source, f"value starting at {_line_col(text, pos)}", str(exc)) from None
    except RecursionError:
        raise too_deep() or InputError(source, "", "JSON too deeply nested to read") from None
    if _deeper_than(docs, max_depth):
        raise too_deep() or InputError(source, "", f"JSON nested more than {max_depth} levels deep")
    return docs


def safe_load(text: str, source: str = "input", limit: int | None = None) -> Any:
    """A single-document YAML text (e.g. volcano-scheduler.conf) as plain data; empty text is None."""
    docs = safe_load_all(text, source, limit)
    docs = [d for d in docs if d is not None] or [None]
    if len(docs) > 1:
        raise InputError(source, "", f"expected one YAML document, found {len(docs)}")
    return docs[0]
