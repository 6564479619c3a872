"""WhatsAppDriver: the engine processes' driver for real WhatsApp sessions, one neonize client each.

A client's `connect()` blocks for the life of the connection, so each session runs it on its own
thread; the library calls back on its own threads with QR codes and events, which are mapped
(`inbound`) and reported like every engine's events. Starting and stopping clients is serialised per
process (neonize's Go side keeps its clients in unguarded maps). Every connection goes through the
session's `proxy`, else `WHATSAPP_PROXY`, when set.

The client class comes from `client_factory(store, session_id, device_jid)`: the library's NewClient
in production, a stand-in with the same methods in the mapping tests.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from messaging.engines.base import (
    ConnectResult,
    Engine,
    EngineNotAllowed,
    EngineNotConnected,
    EngineUnavailableError,
    EventCallback,
    PairingCode,
    QrCode,
)
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import ConnectedEvent, DisconnectedEvent, EngineEvent, QrEvent
from messaging.engines.whatsapp import inbound, lids, polls
from messaging.engines.whatsapp import status as stories
from messaging.engines.whatsapp.chat_actions import (
    WhatsAppChatActions,
    blocklist_events,
    history_state_events,
)
from messaging.engines.whatsapp.errors import library_errors
from messaging.engines.whatsapp.group_admin import WhatsAppBehaviour, WhatsAppGroupAdmin
from messaging.engines.whatsapp.library import load
from messaging.engines.whatsapp.newsletters import WhatsAppNewsletters
from messaging.engines.whatsapp.operations import WhatsAppOperations
from messaging.engines.whatsapp.status import WhatsAppStatus
from messaging.engines.whatsapp.store import device_delete, device_jid_str, parse_device_jid, store_dsn
from messaging.media import media_save
from messaging.models import Session, WhatsAppDevice

logger = logging.getLogger(__name__)
ClientFactory = Callable[[str, str, str], Any]
# whatsmeow shows the first QR code for 60 s, each next one for 20 s.
_FIRST_QR, _NEXT_QR = 60, 20
_START_GAP = 0.5
_MESSAGE_EVENTS = (
    "Message",
    "HistorySync",
    "Receipt",
    "Presence",
    "ChatPresence",
    "JoinedGroup",
    "GroupInfo",
    "CallOffer",
    "CallAccept",
    "CallTerminate",
    "Blocklist",
)
_CONNECTION_EVENTS = (
    "LoggedOut",
    "StreamReplaced",
    "TemporaryBan",
    "StreamError",
    "ConnectFailure",
    "ClientOutdated",
    "Disconnected",
    "KeepAliveTimeout",
    "KeepAliveRestored",
)


def library_client(store: str, session_id: str, device_jid: str) -> Any:
    """The library's client: resuming the stored device, or a new one to pair."""
    lib = load()
    if device_jid:
        return lib.NewClient(store, jid=parse_device_jid(device_jid))
    # A new pairing asks the phone for the whole history when the session's settings say so.
    props = lib.DeviceProps(
        os="Neonize",
        platformType=lib.DeviceProps.SAFARI,
        requireFullSync=behaviour_of(session_id).sync_full_history,
    )
    return lib.NewClient(store, uuid=session_id, new_device=True, props=props)


@dataclass
class _Live:
    client: Any
    proxy: str = ""
    thread: threading.Thread | None = None
    qr: QrCode | None = None
    serial: int = 0
    connected: bool = False
    stopping: bool = False
    reason: str = ""
    settled: threading.Event = field(default_factory=threading.Event)  # QR, connected, or ended


class WhatsAppDriver(
    WhatsAppOperations,
    WhatsAppGroupAdmin,
    WhatsAppBehaviour,
    WhatsAppChatActions,
    WhatsAppStatus,
    WhatsAppNewsletters,
    Engine,
):
    label = "whatsapp"

    def __init__(self, on_event: EventCallback | None = None, *, client_factory: ClientFactory | None = None):
        super().__init__(on_event)
        self._factory = client_factory or library_client
        self._lock = threading.Lock()
        self._live: dict[str, _Live] = {}

    # --- events from the library's threads ---------------------------------------------------------

    def _emit(self, session_id: str, event: EngineEvent) -> None:
        try:
            self.report(session_id, event)
        except Exception:  # a callback must never raise into the library
            logger.exception("Recording %s for session %s failed", event.name, session_id)
        finally:
            if threading.current_thread() is not threading.main_thread():
                connection.close()

    def _handler(self, session_id: str, live: _Live, name: str) -> Callable[[Any, Any], None]:
        def handle(client: Any, ev: Any) -> None:
            try:
                for event in self._map(session_id, live, name, client, ev):
                    self._emit(session_id, event)
            except Exception:
                logger.exception("Mapping the library's %s event failed (session %s)", name, session_id)
            finally:
                if name == "Connected":  # after the event is recorded: connect's caller reads the session
                    live.settled.set()

        return handle

    def _map(self, session_id: str, live: _Live, name: str, client: Any, ev: Any) -> list[EngineEvent]:
        def store(data: bytes, mime: str, file_name: str):
            return media_save(session_id, data, mime, file_name)

        if name == "Message":
            if self.ignored(session_id, ev):  # the session's settings (messaging.engines.behaviour)
                return []
            statuses = stories.status_events(ev, client.download_any, store)  # status@broadcast
            if statuses is not None:
                return statuses
            special = polls.message_events(session_id, client, ev)  # votes, edits, polls
            if special is not None:
                return special
            message = inbound.message_event(ev, client.download_any, store)
            if message is not None:
                message = lids.with_store_pn(client, message)
                self.read_at_once(session_id, client, message)
            return [message] if message else []
        if name == "HistorySync":
            messages = self.without_ignored(
                session_id, list(inbound.history_events(ev, client.download_any, store))
            )
            return [*messages, *history_state_events(ev)]
        if name == "Receipt":
            return list(inbound.receipt_events(ev, type(ev).ReceiptType.Name(ev.Type)))
        if name == "Presence":
            return [inbound.presence_event(ev)]
        if name == "ChatPresence":
            return [inbound.chat_presence_event(ev)]
        if name == "Connected":
            return self._connected(session_id, live, client)
        if name == "JoinedGroup":
            return [inbound.joined_group_event(ev, inbound.jid_str(client.get_me().JID))]
        if name == "GroupInfo":
            return list(inbound.group_info_events(ev, client.get_group_info(ev.JID)))
        if name == "CallOffer":
            return self.call_offer(session_id, client, ev)
        if name in ("CallAccept", "CallTerminate"):
            status = {"CallOffer": "offer", "CallAccept": "accept", "CallTerminate": "terminate"}[name]
            return [inbound.call_event(ev, status)]
        if name == "Blocklist":
            return blocklist_events(ev)
        if name in _CONNECTION_EVENTS:
            events = inbound.connection_events(name, ev)
            if any(isinstance(e, DisconnectedEvent) for e in events):
                live.connected = False
            return events
        return []

    def _connected(self, session_id: str, live: _Live, client: Any) -> list[EngineEvent]:
        me = client.get_me()
        WhatsAppDevice.objects.update_or_create(
            session_id=session_id, defaults={"jid": device_jid_str(me.JID)}
        )
        live.connected, live.qr = True, None
        self.stay_online(session_id, client)
        jid = inbound.jid_str(me.JID)
        return [ConnectedEvent(jid=jid, phone=me.JID.User, push_name=me.PushName, platform="whatsapp")]

    def _on_qr(self, session_id: str, live: _Live, data: bytes) -> None:
        live.serial += 1
        expires = timezone.now() + timedelta(seconds=_FIRST_QR if live.serial == 1 else _NEXT_QR)
        qr = QrCode(code=data.decode() if isinstance(data, bytes) else str(data), expires_at=expires)
        # Recorded first, then shown: connect's caller reads the session (status `qr`) right after.
        self._emit(session_id, QrEvent(qr_code=qr.code, expires_at=expires.isoformat(), serial=live.serial))
        live.qr = qr
        live.settled.set()

    # --- the client's life ---------------------------------------------------------------------------

    def _proxy(self, session_id: str) -> str:
        own = Session.objects.filter(pk=session_id).values_list("proxy", flat=True).first()
        return own or settings.WHATSAPP_PROXY

    def _start(self, session_id: str) -> _Live:
        """A client for the session, connecting on its own thread (call with the lock held)."""
        device = WhatsAppDevice.objects.filter(session_id=session_id).first()
        client = self._factory(store_dsn(), session_id, device.jid if device else "")
        live = _Live(client=client, proxy=self._proxy(session_id))
        client.event.qr(lambda _client, data: self._on_qr(session_id, live, data))
        events = load().events
        for name in (*_MESSAGE_EVENTS, "Connected", *_CONNECTION_EVENTS):
            client.event(getattr(events, f"{name}Ev"))(self._handler(session_id, live, name))
        live.thread = threading.Thread(
            target=self._run, args=(session_id, live), daemon=True, name=f"wa-{session_id}"
        )
        self._live[session_id] = live
        live.thread.start()
        # Still under the lock: neonize registers the client in Go maps without a mutex as it starts,
        # so the next start waits until this one has shown a QR code, connected, failed, or had a moment.
        live.settled.wait(_START_GAP)
        return live

    def _run(self, session_id: str, live: _Live) -> None:
        reason = "connection_closed"
        try:
            proxy = load().ProxySettings(proxy_address=live.proxy) if live.proxy else None
            live.client.connect(proxy)
        except Exception as exc:
            text = str(exc).lower()
            unreachable = live.proxy and any(w in text for w in ("proxy", "socks", "refused", "dial"))
            reason = "proxy_unreachable" if unreachable else "connect_failure"
            logger.warning("Session %s could not connect to WhatsApp: %s", session_id, exc)
        finally:
            with self._lock:
                if self._live.get(session_id) is live:
                    del self._live[session_id]
            if not live.stopping:
                live.reason, live.connected = reason, False
                self._emit(session_id, DisconnectedEvent(reason=reason))
            live.settled.set()
            close_old_connections()

    def stop(self, session_id: str) -> bool:
        """Close the session's client without logging out (its credentials stay); whether it ran."""
        with self._lock:
            live = self._live.pop(session_id, None)
            if live is not None:
                live.stopping = True
                with library_errors():
                    live.client.stop()
        if live is not None and live.thread is not None:
            live.thread.join(timeout=10)
        return live is not None

    def _ensure(self, session_id: str) -> _Live:
        with self._lock:
            live = self._live.get(session_id)
            return live if live is not None else self._start(session_id)

    def _client(self, session_id: str) -> Any:
        live = self._live.get(session_id)
        if live is None or not live.connected:
            raise EngineNotConnected("The WhatsApp session is not connected.")
        return live.client

    # --- connection ----------------------------------------------------------------------------------

    def connect(self, session_id: str) -> ConnectResult:
        live = self._ensure(session_id)
        live.settled.wait(settings.WHATSAPP_QR_WAIT_SECONDS)
        if live.connected:
            return ConnectResult(status="connected")
        if live.qr is not None:
            return ConnectResult(status="qr", qr=live.qr)
        if live.reason:
            raise EngineUnavailableError(f"WhatsApp could not be reached ({live.reason}).")
        raise EngineUnavailableError("WhatsApp has not answered yet; call connect again in a few seconds.")

    def current_qr(self, session_id: str) -> QrCode:
        live = self._live.get(session_id)
        if live is None or live.connected or live.qr is None:
            raise EngineNotAllowed("The session is not waiting for a QR scan.")
        return live.qr

    def pairing_code(self, session_id: str, phone: str) -> PairingCode:
        live = self._live.get(session_id)
        if live is None or live.connected or live.qr is None:
            raise EngineNotAllowed("The session is not waiting to be paired.")
        with library_errors():
            code = live.client.PairPhone(phone, show_push_notification=True)
        return PairingCode(code=code, phone=phone, expires_at=timezone.now() + timedelta(minutes=3))

    def logout(self, session_id: str) -> None:
        live = self._live.get(session_id)
        if live is not None and live.connected:
            with library_errors():
                live.client.logout()  # unlinks on the phone; whatsmeow deletes the device's keys
        was_active = self.stop(session_id)
        device = WhatsAppDevice.objects.filter(session_id=session_id).first()
        if device is not None:
            device_delete(device.jid)
            device.delete()
        if was_active or device is not None:
            self.report(session_id, DisconnectedEvent(reason="logout"))

    def forget(self, session_id: str) -> None:
        live = self._live.get(session_id)
        if live is not None and live.connected:
            try:
                live.client.logout()
            except Exception:
                logger.warning("Logout of deleted session %s failed; its keys are deleted anyway", session_id)
        self.stop(session_id)
        device = WhatsAppDevice.objects.filter(session_id=session_id).first()
        if device is not None:
            device_delete(device.jid)
            device.delete()

    def restart(self, session_id: str) -> None:
        if not WhatsAppDevice.objects.filter(session_id=session_id).exclude(jid="").exists():
            raise EngineNotConnected("No stored credentials to reconnect with; pair the phone again.")
        self.stop(session_id)
        self._ensure(session_id).settled.wait(settings.WHATSAPP_QR_WAIT_SECONDS)

    # --- engine processes' hooks ----------------------------------------------------------------------

    def stored_sessions(self) -> list[str]:
        return [str(s) for s in WhatsAppDevice.objects.exclude(jid="").values_list("session_id", flat=True)]

    def resume(self, session_id: str) -> None:
        if WhatsAppDevice.objects.filter(session_id=session_id).exclude(jid="").exists():
            self._ensure(session_id)

    # --- operations -----------------------------------------------------------------------------------
