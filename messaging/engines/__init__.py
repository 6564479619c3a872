"""Engine classes by dotted path: `settings.MESSAGING_ENGINE` or a session's own `engine`.

`engine_class` is the one place a path is imported and checked against the contract (the loader in
messaging.services.engine, the system check and the admin's session form all use it). The engines do
not know who records their events: whoever builds one hands it its `on_event` callback.
"""

from __future__ import annotations

from django.utils.module_loading import import_string

from messaging.engines import (
    chat_events,  # noqa: F401  (registers the chat and label events)
    status_events,  # noqa: F401  (registers the status event)
)
from messaging.engines.base import Engine


class NotAnEngine(ImportError):
    """The path imports, but not an Engine subclass."""


def engine_class(path: str) -> type[Engine]:
    """The Engine subclass at `path`. Raises ImportError when it does not import, NotAnEngine (an
    ImportError too) when it is not an engine."""
    found = import_string(path)
    if not (isinstance(found, type) and issubclass(found, Engine)):
        raise NotAnEngine(f"{path} is not a messaging.engines.base.Engine subclass")
    return found
