"""A sandbox session created, connected and paired through the REST API, as a customer would."""

from __future__ import annotations

from rest_framework.test import APIClient

from messaging.models import Session


def pair_sandbox_session(client: APIClient, name: str = "support", phone: str = "5511999990001") -> Session:
    """Create a session with `client`'s key, connect it and scan its QR code in the sandbox as `phone`.
    The returned session carries its instance key in clear (`instance_key`), as only the creation's
    reply shows it."""
    created = client.post("/api/sessions", {"name": name}, format="json")
    assert created.status_code == 201, created.json()
    session_id = created.json()["id"]
    assert client.post(f"/api/sessions/{session_id}/connect").status_code == 200
    scanned = client.post(f"/api/sandbox/sessions/{session_id}/scan", {"phone": phone}, format="json")
    assert scanned.status_code == 200, scanned.json()
    session = Session.objects.get(pk=session_id)
    session.instance_key = created.json()["instanceKey"]
    return session
