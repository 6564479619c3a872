"""What a browser asks of the site besides its pages: the favicon and the guides the pages link to."""

from __future__ import annotations


def test_the_favicon_is_an_svg(client, db) -> None:
    reply = client.get("/favicon.ico")
    assert reply.status_code == 200 and reply["Content-Type"] == "image/svg+xml"
    assert reply.content.startswith(b"<svg")


def test_a_guide_is_its_markdown_as_text(client, db) -> None:
    reply = client.get("/docs/guides/webhooks.md")
    assert reply.status_code == 200 and reply["Content-Type"] == "text/plain; charset=utf-8"
    assert b"x-webhook-signature" in b"".join(reply.streaming_content)


def test_only_the_guides_at_the_top_of_docs_are_served(client, db) -> None:
    assert client.get("/docs/guides/no-such-guide.md").status_code == 404
    assert client.get("/docs/guides/..%2FREADME.md").status_code == 404
    assert client.get("/docs/guides/decisions/README.md").status_code == 404
