"""Being told of every write of a model, whatever API made it.

A value kept from a model's rows (webhooks.lookups) must be dropped by every write that changes them:
`save()` and `delete()` of an instance (post_save, post_delete), and a queryset's `update()`,
`bulk_create()`, `bulk_update()` and `delete()`, which send no per-row signal. A model whose writes are
watched takes `WatchedManager` as its manager (its queryset, `WatchedQuerySet`, tells the watchers of
each of those), and `on_write(model, callback, fields=...)` refuses a model without it, so no write API
is left that bypasses the watchers. Only raw SQL does, and none of the models watched is written so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db import models
from django.db.models.signals import post_delete, post_save

# model -> [(the fields whose change matters, or None for any; callback)]
_watchers: dict[type[models.Model], list[tuple[frozenset[str] | None, Callable[[], None]]]] = {}


def written(model: type[models.Model], fields: Iterable[str] | None = None) -> None:
    """Tell the watchers of `model` that its rows were written (`fields`: the columns set, None: any)."""
    changed = None if fields is None else {_name(model, name) for name in fields}
    for watched, callback in _watchers.get(model, ()):
        if watched is None or changed is None or watched & changed:
            callback()


def _name(model: type[models.Model], name: str) -> str:
    """A field's name from its name or its attribute name (`session_id`)."""
    try:
        return model._meta.get_field(name).name
    except FieldDoesNotExist:
        return name


class WatchedQuerySet(models.QuerySet):
    """A queryset whose bulk writes tell the model's watchers (core.writes.on_write)."""

    def update(self, **kwargs: Any) -> int:
        rows = super().update(**kwargs)
        written(self.model, kwargs)
        return rows

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        rows = super().bulk_update(objs, fields, batch_size=batch_size)
        written(self.model, fields)
        return rows

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Any]:
        created = super().bulk_create(objs, *args, **kwargs)
        written(self.model)
        return created

    def delete(self) -> tuple[int, dict[str, int]]:
        deleted = super().delete()
        written(self.model)
        return deleted

    delete.alters_data = True  # type: ignore[attr-defined]
    delete.queryset_only = True  # type: ignore[attr-defined]


WatchedManager = models.Manager.from_queryset(WatchedQuerySet)


def _on_save(sender: type[models.Model], update_fields: Any = None, **kwargs: Any) -> None:
    written(sender, update_fields)


def _on_delete(sender: type[models.Model], **kwargs: Any) -> None:
    written(sender)


def on_write(
    model: type[models.Model], callback: Callable[[], None], *, fields: Iterable[str] | None = None
) -> None:
    """Call `callback()` after every write of `model`'s rows (only those that set one of `fields`, when
    given), through an instance or a queryset."""
    if not issubclass(model._default_manager._queryset_class, WatchedQuerySet):
        raise ImproperlyConfigured(f"{model.__name__}'s manager must be core.writes.WatchedManager")
    watcher = (None if fields is None else frozenset(fields), callback)
    if watcher not in _watchers.setdefault(model, []):
        _watchers[model].append(watcher)
    post_save.connect(_on_save, sender=model, dispatch_uid=f"core-writes-save-{model._meta.label}")
    post_delete.connect(_on_delete, sender=model, dispatch_uid=f"core-writes-delete-{model._meta.label}")
