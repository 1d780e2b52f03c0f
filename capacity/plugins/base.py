"""What every plugin shares: its option entry and the session it registered with."""

from __future__ import annotations

from typing import Any

from capacity.core.conf import PluginOption


class Plugin:
    """A fresh instance per session, as Volcano builds one (framework.go:44-50)."""

    name = ""

    def __init__(self, option: PluginOption) -> None:
        self.option = option
        self.args: dict[str, Any] = option.arguments or {}

    def on_session_open(self, ssn: Any) -> None:
        raise NotImplementedError

    def on_session_close(self, ssn: Any) -> None:
        """Most plugins keep no state past the session."""
