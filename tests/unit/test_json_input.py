"""`kubectl get -o json` output is read wherever YAML is: detected by content, same objects, same checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from capacity import k8s, limits
from capacity.errors import InputError

CASES = sorted(Path(__file__).parents[1].joinpath("acceptance", "volcano").glob("*/cluster.yaml"))


def _yaml_docs(text: str) -> list:
    return [d for d in yaml.safe_load_all(text) if d is not None]


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
    assert len(CASES) > 50


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
    outputs = []
    for p in (path, jpath):
        code = main(["simulate", str(p), "--format", "json"])
        outputs.append((code, capsys.readouterr().out))
    assert outputs[0] == outputs[1]


def test_cli_malformed_json_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capacity.cli import main
    bad = tmp_path / "c.json"
    bad.write_text('{"kind": "List", "items": [}', encoding="utf-8")
    assert main(["simulate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: line 1, column 28: malformed JSON")
