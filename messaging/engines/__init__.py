"""Engine selection: a dotted path from `settings.MESSAGING_ENGINE` or a session's own `engine`.

One instance per path (engines are stateless apart from their configuration; state lives in the
database or the engine processes), cached, and the cache is cleared when a test changes the setting.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from messaging.engines.base import Engine


@cache
def _load(path: str) -> Engine:
    engine_class = import_string(path)
    if not (isinstance(engine_class, type) and issubclass(engine_class, Engine)):
        raise ImportError(f"{path} is not a messaging.engines.base.Engine subclass")
    # Imported here: the services import this module.
    from messaging.services.events import engine_event_receive

    return engine_class(on_event=engine_event_receive)


def get_engine(path: str | None = None) -> Engine:
    """The engine at `path` (default: settings.MESSAGING_ENGINE). Raises ImportError for a bad path."""
    return _load(path or settings.MESSAGING_ENGINE)


def clear_engine_cache() -> None:
    _load.cache_clear()


@receiver(setting_changed)
def _setting_changed(*, setting: str, **kwargs) -> None:
    if setting == "MESSAGING_ENGINE":
        clear_engine_cache()
