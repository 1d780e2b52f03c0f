"""`kubectl get -o json` output is read wherever YAML is: detected by content, same objects, same checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from capacity.core import limits
from capacity.core.errors import InputError
from capacity.io import k8s

CASES = sorted(Path(__file__).parents[1].joinpath("acceptance", "volcano").glob("*/cluster.yaml"))


def _yaml_docs(text: str) -> list:
    """The objects as kubectl would print them in JSON: read with Kubernetes' YAML rules (limits' loader)."""
    return [d for d in limits.read_yaml_all(text) if d is not None]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.parent.name)
def test_json_list_and_stream_read_as_the_yaml(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    from_yaml = list(k8s.iter_documents(text, str(path)))
    docs = _yaml_docs(text)
    as_list = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}, indent=4)
    as_stream = "\n".join(json.dumps(d, indent=2) for d in docs)
    assert list(k8s.iter_documents(as_list, "c.json")) == from_yaml
    assert list(k8s.iter_documents(as_stream, "c.json")) == from_yaml


def test_acceptance_corpus_is_found() -> None:
    assert len(CASES) == 74  # every acceptance case is read both ways


def test_malformed_json_names_line_and_column() -> None:
    with pytest.raises(InputError) as exc:
        list(k8s.iter_documents('{\n  "kind": "Node",\n  "metadata": {"name": }\n}', "c.json"))
    assert "c.json" in str(exc.value) and "line 3, column" in str(exc.value)
    assert "malformed JSON" in str(exc.value)


def test_duplicate_key_is_refused_as_in_yaml() -> None:
    with pytest.raises(InputError) as exc:
        list(k8s.iter_documents('{"kind": "Node", "kind": "Queue"}', "c.json"))
    assert "key 'kind' appears more than once" in str(exc.value)


def test_deep_nesting_is_refused_without_recursion() -> None:
    with pytest.raises(InputError) as exc:
        list(k8s.iter_documents("[" * 5000 + "]" * 5000, "c.json"))
    assert "nested more than" in str(exc.value)


def test_size_limit_applies_to_json() -> None:
    with pytest.raises(InputError) as exc:
        limits.safe_load_all('{"kind": "List", "items": []}' + " " * 100, "c.json", limit=10)
    assert "c.json" in str(exc.value)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.parent.name)
def test_simulate_output_is_the_same_from_json(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capacity.cli import main
    docs = _yaml_docs(path.read_text(encoding="utf-8"))
    jpath = tmp_path / "cluster.json"
    jpath.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}), encoding="utf-8")
    cycles = str(yaml.safe_load(path.with_name("expect.yaml").read_text(encoding="utf-8")).get("cycles", 1))
    outputs = []
    for p in (path, jpath):
        code = main(["simulate", str(p), "--format", "json", "--cycles", cycles])
        outputs.append((code, capsys.readouterr().out))
    assert outputs[0] == outputs[1]


def test_cli_malformed_json_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capacity.cli import main
    bad = tmp_path / "c.json"
    bad.write_text('{"kind": "List", "items": [}', encoding="utf-8")
    assert main(["simulate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: line 1, column 28: malformed JSON")


@pytest.mark.parametrize("depth", [101, 150, 999, 5000])
def test_too_deep_json_is_refused_where_it_passes_the_limit(depth: int) -> None:
    text = '{"kind": "List", "items": [\n  ' + "[" * depth + "]" * depth + "]}"
    with pytest.raises(InputError) as exc:
        limits.json_load_all(text, "c.json")
    # the 101st bracket: two on line 1, then the list on line 2 from column 3
    assert str(exc.value).startswith("c.json: line 2, column 101: JSON nested more than 100 levels deep")


def test_deep_json_is_refused_before_a_later_syntax_error() -> None:
    text = "[" * 150 + "]" * 150 + '\n{"kind": }'
    with pytest.raises(InputError, match="line 1, column 101: JSON nested more than 100 levels"):
        limits.json_load_all(text, "c.json")


def test_json_at_the_depth_limit_is_read() -> None:
    value: list = []
    for _ in range(99):
        value = [value]
    assert limits.json_load_all("[" * 100 + "]" * 100) == [value]


@pytest.mark.parametrize("text", ["{kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '2'}}}\n",
                                  "[{kind: Queue, metadata: {name: q}}]\n---\n{kind: Node, metadata: {name: n1}}\n"])
def test_yaml_in_flow_style_is_still_yaml(text: str) -> None:
    """A text that starts like JSON but is not JSON is read as the YAML it is (it was refused as malformed JSON)."""
    assert limits.safe_load_all(text, "c.yaml") == limits.read_yaml_all(text, "c.yaml")
    assert limits.safe_load_all(text, "c.yaml")
