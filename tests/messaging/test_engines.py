"""Engine selection, the system check, an unavailable engine, sandbox-only routes, the admin action."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from messaging.checks import check_engine
from messaging.engines.sandbox import SandboxEngine
from messaging.models import Session
from messaging.services.engine import get_engine
from tests.messaging.engines import UNAVAILABLE, UnavailableEngine
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def test_default_engine_is_the_sandbox_and_is_cached():
    engine = get_engine()
    assert isinstance(engine, SandboxEngine)
    assert get_engine() is engine


def test_changing_the_setting_clears_the_engine_cache():
    with override_settings(MESSAGING_ENGINE=UNAVAILABLE):
        assert isinstance(get_engine(), UnavailableEngine)
    assert isinstance(get_engine(), SandboxEngine)


def test_the_system_check_reports_an_engine_path_that_does_not_import():
    assert check_engine(None) == []
    with override_settings(MESSAGING_ENGINE="messaging.engines.nowhere.Engine"):
        errors = check_engine(None)
        assert [e.id for e in errors] == ["messaging.E001"]
        with pytest.raises(SystemCheckError):
            call_command("check")
    with override_settings(MESSAGING_ENGINE="messaging.models.Session"):
        assert [e.id for e in check_engine(None)] == ["messaging.E002"]


def _unavailable_session(admin_client, make_session) -> str:
    session_id = make_session()["id"]
    Session.objects.filter(pk=session_id).update(engine=UNAVAILABLE)
    return session_id


def test_an_unavailable_engine_gives_502_on_the_api(admin_client, make_session):
    session_id = _unavailable_session(admin_client, make_session)
    response = admin_client.post(f"/api/sessions/{session_id}/connect")
    assert response.status_code == 502
    assert response.json()["error"] == "ENGINE_UNAVAILABLE"
    assert response.json()["statusCode"] == 502
    assert "X-RateLimit-Limit" in response
    assert Session.objects.get(pk=session_id).status == "disconnected"
    assert not Event.objects.exists()


def test_an_unavailable_engine_gives_502_engine_unavailable_on_the_gateway(admin_client, make_session):
    session_id = _unavailable_session(admin_client, make_session)
    response = admin_client.post(f"/gateway/sessions/{session_id}/pair/qr")
    assert response.status_code == 502
    assert response.json() == {"error": "Engine unavailable"}


def test_deleting_a_session_whose_engine_is_down_changes_nothing(admin_client, make_session):
    session_id = _unavailable_session(admin_client, make_session)
    assert admin_client.delete(f"/api/sessions/{session_id}").status_code == 502
    assert Session.objects.filter(pk=session_id).exists()


def test_the_settings_engine_applies_to_sessions_without_their_own(admin_client, make_session):
    session_id = make_session()["id"]
    with override_settings(MESSAGING_ENGINE=UNAVAILABLE):
        assert admin_client.get(f"/api/sessions/{session_id}").json()["engine"] == "unavailable-test"
        assert admin_client.post(f"/api/sessions/{session_id}/logout").status_code == 502


def test_a_session_engine_path_that_does_not_import_is_502(admin_client, make_session):
    session_id = make_session()["id"]
    Session.objects.filter(pk=session_id).update(engine="nowhere.Engine")
    assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 502


def test_sandbox_routes_are_404_for_other_engines(admin_client, make_session):
    session_id = _unavailable_session(admin_client, make_session)
    for path in (f"/api/sandbox/sessions/{session_id}/scan", f"/api/sandbox/sessions/{session_id}/inbound"):
        response = admin_client.post(
            path, {"event": "presence", "from": "5511999990002", "presence": "available"}, format="json"
        )
        assert response.status_code == 404, path
        assert response.json()["error"] == "SESSION_NOT_FOUND"


def test_the_admin_labels_sandbox_sessions_and_pairs_them(client, account, admin_client, make_session):
    session_id = make_session()["id"]
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw")
    client.force_login(staff)
    listing = client.get("/admin/messaging/session/")
    assert listing.status_code == 200
    assert b"SANDBOX" in listing.content
    response = client.post(
        "/admin/messaging/session/", {"action": "sandbox_scan", "_selected_action": [session_id]}, follow=True
    )
    assert response.status_code == 200
    session = Session.objects.get(pk=session_id)
    assert session.status == "connected"
    assert Event.objects.filter(session=session, name="connected").count() == 1
    for page in (
        "/admin/messaging/message/",
        "/admin/messaging/group/",
        f"/admin/messaging/session/{session_id}/change/",
    ):
        assert client.get(page).status_code == 200, page


# Slow (tests/tiers.py): loads the whole demo, twice.
@pytest.mark.slow
def test_load_demo_is_idempotent_and_makes_a_connected_sandbox_session():
    import io

    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())
    demo = Session.objects.filter(account__name="demo")
    assert sorted(demo.values_list("name", "status")) == [
        ("demo-sandbox", "connected"),
        ("demo-waiting", "qr"),
    ]
    connected = demo.get(name="demo-sandbox")
    assert connected.messages.count() == 2
    assert connected.messages.filter(direction="outbound").get().content["quoted"]


def test_the_admin_session_form_refuses_an_engine_path_that_is_not_an_engine(account):
    from django.forms import modelform_factory

    from messaging.admin import SessionAdminForm

    form_class = modelform_factory(Session, form=SessionAdminForm, fields=["engine"])

    def engine_errors(path: str) -> list[str]:
        form = form_class(data={"engine": path})
        form.is_valid()
        return form.errors.get("engine", [])

    assert engine_errors("nowhere.Engine")[0].startswith("Cannot import 'nowhere.Engine': ")
    assert engine_errors("messaging.models.Session") == [
        "'messaging.models.Session' is not a messaging engine class."
    ]
    assert engine_errors(UNAVAILABLE) == []
