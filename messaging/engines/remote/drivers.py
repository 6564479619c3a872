"""The drivers an engine process can host (`ENGINE_DRIVER`), and what the host needs from each.

A driver is an Engine (the in-process contract) plus two hooks the host calls: `stored_sessions()`, the
sessions with stored credentials (those a process takes over when their owner is gone), and
`resume(session_id)`, bringing a taken-over session back without a new pairing. The next drivers
(`whatsapp`) join by adding an entry to DRIVERS.
"""

from __future__ import annotations

from typing import Protocol

from django.utils.module_loading import import_string

from messaging.engines.base import Engine, EventCallback
from messaging.engines.sandbox import SandboxEngine
from messaging.models import SandboxDevice


class Driver(Protocol):
    def stored_sessions(self) -> list[str]: ...

    def resume(self, session_id: str) -> None: ...


class SandboxDriver(SandboxEngine):
    """The sandbox, hosted: its state (credentials, QR, groups) is in the database, so a session
    resumes on any process; nothing to reconnect."""

    def stored_sessions(self) -> list[str]:
        paired = SandboxDevice.objects.filter(credentials__isnull=False)
        return [str(pk) for pk in paired.values_list("session_id", flat=True)]

    def resume(self, session_id: str) -> None:
        return None


DRIVERS: dict[str, type[Engine] | str] = {
    "sandbox": SandboxDriver,
    # Imported only when chosen: it loads the whatsmeow library (messaging.engines.whatsapp.library).
    "whatsapp": "messaging.engines.whatsapp.driver.WhatsAppDriver",
}


def load_driver(name: str, on_event: EventCallback) -> Engine:
    if name not in DRIVERS:
        raise ValueError(f"Unknown ENGINE_DRIVER {name!r}; one of {', '.join(DRIVERS)}.")
    driver = DRIVERS[name]
    if isinstance(driver, str):
        driver = import_string(driver)
    return driver(on_event=on_event)
