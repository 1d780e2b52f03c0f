"""Errors that name the offending object and field, so a user can fix their input.

Volcano either panics or silently drops bad input; the simulator stops with one of these instead
(see the "Modelling recommendations" of shared/spec/queue-plugins.md).
"""

from __future__ import annotations

from collections.abc import Sequence


class InputError(Exception):
    """Invalid user input, located by object (``"Queue/team-a"``) and field (``"spec.capability.cpu"``).

    ``str(err)`` is ``"<obj>: <field>: <message>"`` with empty parts left out.
    """

    def __init__(self, obj: str = "", field: str = "", message: str = "") -> None:
        obj, field, message = _clip(str(obj), 300), _clip(str(field), 300), _clip(str(message), 1000)
        super().__init__(obj, field, message)
        self.obj = obj
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return ": ".join(part for part in (self.obj, self.field, self.message) if part)


def _clip(text: str, limit: int) -> str:
    """Keep a message one readable line even when it quotes a megabyte-long name or value; control
    characters from input (a newline or ANSI escape in a name) are shown escaped (capacity.core.text.safe)."""
    from capacity.core.text import safe

    text = safe(text.replace("\n", " ") if text.endswith("\n") else text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class ResourceUnderflow(Exception):
    """Raised where Volcano's ``Resource.Sub`` assertion would panic (subtracting more than is there).

    ``left`` is the resource being reduced, ``right`` the amount subtracted (both as they were before
    the subtraction), ``dimensions`` the names on which ``right`` does not fit in ``left``.
    """

    def __init__(self, left: object, right: object, dimensions: Sequence[str] = ()) -> None:
        super().__init__(left, right, list(dimensions))
        self.left = left
        self.right = right
        self.dimensions = list(dimensions)

    def __str__(self) -> str:
        dims = f" (insufficient: {', '.join(self.dimensions)})" if self.dimensions else ""
        return f"resource underflow: <{self.left}> sub <{self.right}>{dims}"
