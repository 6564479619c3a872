"""QR code rendering (segno, pure Python)."""

from __future__ import annotations

import base64
import io

import segno


def qr_png(code: str, *, scale: int = 6) -> bytes:
    buffer = io.BytesIO()
    segno.make_qr(code, error="m").save(buffer, kind="png", scale=scale, border=4)
    return buffer.getvalue()


def qr_data_uri(code: str) -> str:
    return "data:image/png;base64," + base64.b64encode(qr_png(code)).decode()
