"""Test-side helpers for the lessons: every lesson loaded, and a question's stated value in the engine's units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from capacity.authoring.lessons import LESSONS_DIR, Lesson, lesson_ids, load_lesson
from capacity.core.resources import from_resource_list


def all_lessons(root: Path = LESSONS_DIR) -> list[Lesson]:
    return [load_lesson(i, root) for i in lesson_ids(root)]


def stated_value(fld: str, value: Any) -> Any:
    """A question's stated value in the units `lessons.scenario_value` gives (quantities parsed)."""
    part, _, rest = fld.partition(".")
    res = rest if part in ("deserved", "capability", "guarantee") else fld
    if res in ("cpu", "memory") or "/" in res:
        return from_resource_list({res: str(value)}, obj="fact", field=fld).get(res)
    return value
