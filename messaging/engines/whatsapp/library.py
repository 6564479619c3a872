"""The guarded import of neonize: the whatsmeow binary bundled in the pinned wheel, never a download.

neonize's loader downloads its shared library from the internet when the bundled one is missing or of
another version. Ponte refuses that: `load()` checks that the wheel's binary is present before the
package is imported (the pinned wheel's binary and Python code carry the same version, so the loader's
download branch is never reached), and fails with a clear ImportError otherwise.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import SimpleNamespace


def bundled_binary() -> Path | None:
    spec = importlib.util.find_spec("neonize")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(p for p in folder.glob("neonize-*") if p.suffix in (".so", ".dylib", ".dll"))
    return found[0] if found else None


@cache
def load() -> SimpleNamespace:
    """The library's client class, proxy settings and event types (imported once per process)."""
    if bundled_binary() is None:
        raise ImportError(
            "neonize's bundled whatsmeow binary is missing; install the pinned wheel (requirements.txt). "
            "Ponte never lets neonize download it."
        )
    from neonize import events
    from neonize._binder import ProxySettings
    from neonize.client import NewClient
    from neonize.proto.waCompanionReg.WAWebProtobufsCompanionReg_pb2 import DeviceProps

    return SimpleNamespace(
        NewClient=NewClient, ProxySettings=ProxySettings, events=events, DeviceProps=DeviceProps
    )
