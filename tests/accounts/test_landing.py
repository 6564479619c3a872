"""The landing page at `/`."""

from __future__ import annotations


def test_landing_page_says_what_ponte_is_and_links_the_entry_points(client, db) -> None:
    reply = client.get("/")
    page = reply.content.decode()
    assert reply.status_code == 200 and reply["Content-Type"].startswith("text/html")
    assert "fixed-income" in page
    for link in ['href="/docs/"', 'href="/account/"', 'href="/admin/"', 'href="http://testserver/bonds/mcp"']:
        assert link in page
