"""Where whatsmeow keeps device credentials: Ponte's own database.

PostgreSQL when Ponte runs on it (whatsmeow's `whatsmeow_*` tables beside Ponte's), else a SQLite file
under the var dir (`whatsapp.sqlite3`); `WHATSAPP_STORE` overrides both. The device of a session is
deleted from the store on logout (whatsmeow does it) and on delete (here), with every key table
(whatsmeow's foreign keys cascade from `whatsmeow_device`).
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.db import connection


def store_dsn() -> str:
    if settings.WHATSAPP_STORE:
        return settings.WHATSAPP_STORE
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("postgresql"):
        auth = quote(db.get("USER") or "", safe="")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"], safe="")
        host = db.get("HOST") or "127.0.0.1"
        port = db.get("PORT") or "5432"
        return f"postgres://{auth}@{host}:{port}/{db['NAME']}?sslmode=disable"
    return str(settings.VAR_DIR / "whatsapp.sqlite3")


def device_delete(jid: str) -> None:
    """Remove a device and its keys from the store (the session is deleted or logged out)."""
    if not jid:
        return
    dsn = store_dsn()
    if dsn.startswith("postgres"):
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('whatsmeow_device') IS NOT NULL")
            if cursor.fetchone()[0]:
                cursor.execute("DELETE FROM whatsmeow_device WHERE jid = %s", [jid])
        return
    with sqlite3.connect(dsn) as db:
        db.execute("PRAGMA foreign_keys = ON")
        exists = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='whatsmeow_device'"
        ).fetchone()
        if exists:
            db.execute("DELETE FROM whatsmeow_device WHERE jid = ?", (jid,))


def parse_device_jid(value: str) -> Any:
    """`user[.agent][:device]@server` (whatsmeow's device JID string) as the library's JID."""
    from neonize.proto import Neonize_pb2 as lib

    user, _, server = value.partition("@")
    user, _, device = user.partition(":")
    user, _, agent = user.partition(".")
    return lib.JID(
        User=user,
        Server=server,
        Device=int(device or 0),
        RawAgent=int(agent or 0),
        Integrator=0,
        IsEmpty=False,
    )


def device_jid_str(jid: Any) -> str:
    user = jid.User + (f".{jid.RawAgent}" if jid.RawAgent else "") + (f":{jid.Device}" if jid.Device else "")
    return f"{user}@{jid.Server}"
