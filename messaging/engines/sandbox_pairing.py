"""The sandbox's pairing: connect (a QR code renewed every MESSAGING_QR_TTL_SECONDS), a pairing code by
phone number, the phone's scan, logout and forget, with the `qr`, `connected` and `disconnected` events
they report.

A mixin of SandboxEngine, kept apart so each module stays small; it uses the engine's device helper
(`_device`) and reports typed events like every other engine method.
"""

from __future__ import annotations

import base64
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from messaging.addressing import user_suffix
from messaging.engines.base import ConnectResult, EngineNotAllowed, EngineRefused, PairingCode, QrCode
from messaging.engines.events import ConnectedEvent, DisconnectedEvent, QrEvent
from messaging.engines.sandbox_groups import sandbox_digest
from messaging.models import SandboxDevice

# Pairing-code alphabet of WhatsApp's linked devices: no 0/O, 1/I confusion.
_CODE_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTVWXYZ"


class SandboxRefused(EngineRefused):
    """The simulated phone refuses the action (expired code, wrong pairing code): a client error."""


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


class SandboxPairing:
    """Connect, QR codes, pairing codes, the phone's scan, logout and forget."""

    @staticmethod
    def _ttl() -> timedelta:
        return timedelta(seconds=settings.MESSAGING_QR_TTL_SECONDS)

    def _new_qr(self, device: SandboxDevice) -> QrCode:
        device.qr_serial += 1
        sid, serial = device.session_id, device.qr_serial
        ref = _b64(sandbox_digest("ref", sid, serial)[:18])
        device.qr_code = "2@{},{},{},{}".format(
            ref,
            _b64(sandbox_digest("noise", sid)),
            _b64(sandbox_digest("identity", sid)),
            _b64(sandbox_digest("adv", sid, serial)),
        )
        device.qr_expires_at = timezone.now() + self._ttl()
        device.save()
        qr = QrCode(code=device.qr_code, expires_at=device.qr_expires_at)
        self.report(str(sid), QrEvent(qr_code=qr.code, expires_at=qr.expires_at.isoformat(), serial=serial))
        return qr

    @staticmethod
    def _waiting(device: SandboxDevice) -> bool:
        return not device.credentials and bool(device.qr_code)

    # --- connection -------------------------------------------------------------------------------

    @transaction.atomic
    def connect(self, session_id: str) -> ConnectResult:
        device = self._device(session_id)
        if device.credentials:
            return ConnectResult(status="connected")
        if device.qr_code and device.qr_expires_at and device.qr_expires_at > timezone.now():
            return ConnectResult(status="qr", qr=QrCode(device.qr_code, device.qr_expires_at))
        return ConnectResult(status="qr", qr=self._new_qr(device))

    @transaction.atomic
    def current_qr(self, session_id: str) -> QrCode:
        device = self._device(session_id)
        if not self._waiting(device):
            raise EngineNotAllowed("The session is not waiting for a QR scan.")
        if device.qr_expires_at is None or device.qr_expires_at <= timezone.now():
            return self._new_qr(device)
        return QrCode(device.qr_code, device.qr_expires_at)

    @transaction.atomic
    def pairing_code(self, session_id: str, phone: str) -> PairingCode:
        device = self._device(session_id)
        if not self._waiting(device):
            raise EngineNotAllowed("The session is not waiting to be paired.")
        raw = sandbox_digest("pair", session_id, phone, device.qr_serial)
        code = "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in raw[:8])
        device.pairing_phone = phone
        device.pairing_code = f"{code[:4]}-{code[4:]}"
        device.pairing_expires_at = timezone.now() + 3 * self._ttl()
        device.save()
        return PairingCode(code=device.pairing_code, phone=phone, expires_at=device.pairing_expires_at)

    @transaction.atomic
    def scan(self, session_id: str, *, phone: str = "", pairing_code: str = "") -> str:
        """The phone scans the QR code (or types the pairing code): pair and report `connected`.

        Returns the session's own JID.
        """
        device = self._device(session_id)
        if not self._waiting(device):
            raise EngineNotAllowed("The session is not waiting to be paired; connect it first.")
        now = timezone.now()
        if pairing_code:
            if not device.pairing_code or pairing_code.strip().upper() != device.pairing_code:
                raise SandboxRefused("Wrong pairing code; request one with the phone number first.")
            if device.pairing_expires_at is None or device.pairing_expires_at <= now:
                raise SandboxRefused("The pairing code expired; request a new one.")
            phone = device.pairing_phone
        elif device.qr_expires_at is None or device.qr_expires_at <= now:
            raise SandboxRefused("The QR code expired; fetch the new one and scan again.")
        if not phone:
            phone = "55119" + str(int(sandbox_digest("phone", session_id).hex(), 16) % 10**8).zfill(8)
        device.credentials = {
            "noiseKey": _b64(sandbox_digest("noise", session_id)),
            "identityKey": _b64(sandbox_digest("identity", session_id)),
            "advSecret": _b64(sandbox_digest("adv", session_id, device.qr_serial)),
            "phone": phone,
        }
        device.jid = f"{phone}@{user_suffix()}"
        device.push_name = device.push_name or f"Sandbox {phone[-4:]}"
        device.qr_code = ""
        device.qr_expires_at = None
        device.pairing_code = device.pairing_phone = ""
        device.pairing_expires_at = None
        device.save()
        self.report(
            str(session_id),
            ConnectedEvent(jid=device.jid, phone=phone, push_name=device.push_name, platform="sandbox"),
        )
        return device.jid

    @transaction.atomic
    def logout(self, session_id: str) -> None:
        device = self._device(session_id)
        was_active = bool(device.credentials or device.qr_code)
        device.credentials = None
        device.jid = ""
        device.qr_code = ""
        device.qr_expires_at = None
        device.pairing_code = device.pairing_phone = ""
        device.pairing_expires_at = None
        device.save()
        if was_active:
            self.report(str(session_id), DisconnectedEvent(reason="logout"))

    @transaction.atomic
    def forget(self, session_id: str) -> None:
        SandboxDevice.objects.filter(session_id=session_id).delete()
