"""The default of a patch's keyword arguments that means "not given", where None is a value to set."""

from __future__ import annotations

from typing import Any

UNSET: Any = object()
