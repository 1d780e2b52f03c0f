"""The worked example of `check` (tests/data/reality): a dump whose status disagrees with the engine for several
reasons at once, with a metrics scrape; its whole text output is pinned, and the agreeing counterpart (the
same dump with the status the engine computes) exits 0."""

from __future__ import annotations

from pathlib import Path

import yaml

from capacity.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "reality"


def test_the_disagreeing_example_prints_each_difference_with_its_causes(capsys):
    assert main(["check", str(DATA / "disagreeing.yaml"), "--metrics", str(DATA / "metrics.txt")]) == 1
    assert capsys.readouterr().out == (DATA / "expected.txt").read_text()


def test_the_example_with_the_status_the_engine_computes_agrees(tmp_path, capsys):
    doc = yaml.safe_load((DATA / "disagreeing.yaml").read_text())
    for item in doc["items"]:
        if item["kind"] == "Queue" and item["metadata"]["name"] == "team-a":
            item["status"]["allocated"] = {"cpu": "4", "memory": "8Gi", "pods": "2"}
        if item["kind"] == "Queue" and item["metadata"]["name"] == "team-b":
            item["status"].update(pending=0, inqueue=1)
        if item["kind"] == "PodGroup" and item["metadata"]["name"] == "report":
            item["status"]["phase"] = "Inqueue"
    path = tmp_path / "agreeing.yaml"
    path.write_text(yaml.safe_dump(doc))
    metrics = tmp_path / "metrics.txt"
    metrics.write_text((DATA / "metrics.txt").read_text().replace("6000", "4000"))
    assert main(["check", str(path), "--metrics", str(metrics)]) == 0
    assert capsys.readouterr().out.startswith("agree: the engine's numbers match the cluster's (20 figures compared)")
