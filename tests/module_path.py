"""Follow a path through Ponte call by call and say which of its modules it enters, in order (issue 40).

`sys.setprofile` sees every Python call of this thread. A call *enters* a module when its function
belongs to one of Ponte's packages and the nearest Ponte frame below it (the caller, or the Ponte code
that called the library that called it: a view reached through Django's handler) belongs to another
module. Calls within a module, calls into libraries, returns, and a dataclass's generated methods (no
code of the module runs) enter nothing.

* `chains`: Ponte's code calling into a module that is still on the stack below (A → B → A: a
  callback, the shape issue 40 removed: an engine reporting back into the send service, the drain loop
  calling back into the module that started it, a kept lookup loading through the sink that asked it).
  A framework calling a hook of a module already on the stack (DRF validating with the view module's
  own serializer, parsing with the parser of the middleware's module) is the framework's template, not
  Ponte's call, and is shown as `(hook)` in `describe()`.
* `repeats`: modules Ponte's code entered again after control came back (A → B, back to A, A → B):
  a service asking the same helper module twice, the drain loop's turn (claim, hold, attempt, settle).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

PONTE_PACKAGES = frozenset(
    {"config", "core", "net", "jobs", "accounts", "bonds", "messaging", "webhooks", "integrations", "portal"}
)


def _module_of(frame) -> str | None:
    if frame.f_code.co_filename == "<string>":
        return None  # a dataclass's generated __init__, __eq__...: none of the module's own code runs
    name = frame.f_globals.get("__name__", "")
    return name if name.split(".", 1)[0] in PONTE_PACKAGES else None


def _hooked(frame) -> bool:
    """Whether the nearest caller that is not a thin wrapper (functools, contextlib) is a framework's."""
    caller = frame.f_back
    while caller is not None and caller.f_globals.get("__name__") in ("functools", "contextlib", "abc"):
        caller = caller.f_back
    name = caller.f_globals.get("__name__", "") if caller is not None else ""
    return name.split(".", 1)[0] in ("django", "rest_framework", "asgiref")


def _modules_on(stack: list[str | None]) -> list[str]:
    """The Ponte modules on a stack, bottom first, a run of frames of one module once."""
    chain: list[str] = []
    for module in stack:
        if module is not None and (not chain or chain[-1] != module):
            chain.append(module)
    return chain


@dataclass
class ModulePath:
    """The modules a path entered, in the order it entered them."""

    # (module, hook): `hook` when a library called a function Ponte gave it (Django's middleware and
    # handler, DRF's authentication, throttles and permissions, one hook after another: the framework's
    # path); otherwise Ponte's own code made the call.
    entered: list[tuple[str, bool]] = field(default_factory=list)
    reentries: list[str] = field(default_factory=list)
    chains: list[str] = field(default_factory=list)  # the modules on the stack at each re-entry

    @property
    def entries(self) -> list[str]:
        return [module for module, _ in self.entered]

    @property
    def calls(self) -> list[str]:
        """The entries Ponte's own code made."""
        return [module for module, hook in self.entered if not hook]

    @property
    def modules(self) -> list[str]:
        """Each module once, in the order of its first entry."""
        return list(dict.fromkeys(self.entries))

    @property
    def repeats(self) -> dict[str, int]:
        """Modules Ponte's own code entered more than once: {module: entries}."""
        counts: dict[str, int] = {}
        for module in self.calls:
            counts[module] = counts.get(module, 0) + 1
        return {module: n for module, n in counts.items() if n > 1}

    def describe(self) -> str:
        lines = [
            f"{len(self.entries)} entries ({len(self.calls)} by Ponte) over {len(self.modules)} modules:"
        ]
        lines += [
            f"  {n:>2}. {module}{'  (hook)' if hook else ''}"
            for n, (module, hook) in enumerate(self.entered, 1)
        ]
        if self.reentries:
            lines.append("re-entered while on the stack:")
            lines += [f"  {chain}" for chain in self.chains]
        if self.repeats:
            lines.append(f"entered more than once by Ponte: {self.repeats}")
        return "\n".join(lines)


@contextmanager
def traced(*, skip: Callable[[str], bool] = lambda module: False) -> Iterator[ModulePath]:
    """Record the modules entered by this thread inside the block. `skip(module)`: modules left out of
    the path (the test's own helpers)."""
    path = ModulePath()
    stack: list[str | None] = []  # the Ponte module of each open frame (None: not Ponte's)
    me = threading.get_ident()

    def nearest() -> str | None:
        for module in reversed(stack):
            if module is not None:
                return module
        return None

    def profile(frame, event: str, arg) -> None:
        if threading.get_ident() != me:
            return
        if event == "call":
            module = _module_of(frame)
            if module is not None and skip(module):
                module = None
            if module is not None and module != nearest():
                hook = _hooked(frame)
                if module in stack and not hook:
                    chain = _modules_on(stack)
                    path.reentries.append(module)
                    path.chains.append(" → ".join([*chain, f"{module} ({frame.f_code.co_name})"]))
                path.entered.append((module, hook))
            stack.append(module)
        elif event == "return" and stack:
            stack.pop()

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield path
    finally:
        sys.setprofile(previous)


def entry_budget(base: int, *, redis: int = 0, postgresql: int = 0) -> int:
    """A path's pinned number of entries on this environment: `base` on the embedded default (SQLite,
    no shared cache), plus what a shared cache adds (kept lookups check their version through
    core.cache and its breaker) and what PostgreSQL's job store adds."""
    from django.db import connection

    from webhooks.lookups import shared_cache

    return base + (redis if shared_cache() else 0) + (postgresql if connection.vendor == "postgresql" else 0)
