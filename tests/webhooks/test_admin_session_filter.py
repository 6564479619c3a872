"""The admin's delivery list names each session with its account in the session filter: two accounts'
sessions of the same name were two identical choices (issue 45)."""

from __future__ import annotations

from messaging.models import Session


def test_the_session_filter_tells_same_named_sessions_of_two_accounts_apart(
    admin_client, make_account
) -> None:
    for account in (make_account(name="shop-a"), make_account(name="shop-b")):
        Session.objects.create(account=account, name="demo-sandbox")
    page = admin_client.get("/admin/webhooks/delivery/").content.decode()
    assert "demo-sandbox · shop-a" in page and "demo-sandbox · shop-b" in page
