"""Link previews on a text send (`linkPreview` of `POST /api/messages/send`).

Given (`{url, title, description?, thumbnailBase64?}`) the preview is sent as it is; `true` makes Ponte
read the first link of the text itself: the page's Open Graph `og:title`, `og:description` and
`og:image` (falling back to `<title>` and the `description` meta tag), through the SSRF-safe transport
(net.transport), the page and its image within MESSAGING_LINK_PREVIEW_TIMEOUT seconds and
MESSAGING_LINK_PREVIEW_MAX_BYTES bytes together. Any failure there (no link, a refused address, a slow
or large page, no title) sends the text without a preview: a preview is decoration, never a reason to
refuse a send. The page is read before the send starts, outside any transaction (net.guard).
"""

from __future__ import annotations

import html
import logging
import re
import time
from html.parser import HTMLParser
from urllib.parse import urljoin

from django.conf import settings

from messaging.engines.base import LinkPreview, OutgoingTextPreview
from messaging.models import Message, Session
from messaging.services.engine import require_connected
from messaging.services.messages import QuotedInput, message_send, message_send_text
from net.transport import TransportError, UnsafeTarget, safe_get

logger = logging.getLogger(__name__)

_LINK = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
_PAGE_TYPES = ("text/html", "application/xhtml+xml", "")
_TITLE_MAX, _DESCRIPTION_MAX = 200, 500


def first_link(text: str) -> str:
    """The first http(s) link of a text, without the punctuation that ends a sentence."""
    found = _LINK.search(text)
    return found.group(0).rstrip(".,;:!?)]}") if found else ""


class _OpenGraph(HTMLParser):
    """The page's `og:*` and `description` meta tags and its `<title>`, read until `</head>`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, str] = {}
        self.title = ""
        self._in_title = False
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k.lower(): v or "" for k, v in attrs}
        if tag == "meta":
            name = (values.get("property") or values.get("name") or "").lower()
            if name and name not in self.tags and values.get("content"):
                self.tags[name] = values["content"].strip()
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "head":
            self.done = True

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def _page_facts(page: bytes) -> tuple[str, str, str]:
    """(title, description, image URL as written) of an HTML page; "" for what it lacks."""
    parser = _OpenGraph()
    parser.feed(page.decode("utf-8", errors="replace"))
    tags = parser.tags
    title = tags.get("og:title") or tags.get("twitter:title") or html.unescape(parser.title).strip()
    description = tags.get("og:description") or tags.get("description") or ""
    image = tags.get("og:image") or tags.get("og:image:url") or tags.get("twitter:image") or ""
    return title[:_TITLE_MAX], description[:_DESCRIPTION_MAX], image


def link_preview_read(url: str) -> LinkPreview | None:
    """The preview of `url` from its Open Graph tags, or None when it cannot be made (logged)."""
    budget = settings.MESSAGING_LINK_PREVIEW_MAX_BYTES
    deadline = time.monotonic() + settings.MESSAGING_LINK_PREVIEW_TIMEOUT
    try:
        page, content_type = safe_get(url, max_bytes=budget, timeout=settings.MESSAGING_LINK_PREVIEW_TIMEOUT)
        if content_type not in _PAGE_TYPES:
            logger.info("No link preview for %s: it is %s, not a page", url, content_type)
            return None
        title, description, image = _page_facts(page)
        if not title:
            logger.info("No link preview for %s: the page has no title", url)
            return None
        thumbnail = _thumbnail(urljoin(url, image), budget - len(page), deadline) if image else b""
    except (TransportError, UnsafeTarget) as exc:
        logger.info("No link preview for %s: %s", url, exc)
        return None
    return LinkPreview(url=url, title=title, description=description, thumbnail=thumbnail)


def _thumbnail(url: str, max_bytes: int, deadline: float) -> bytes:
    """The Open Graph image's bytes, if it is an image that fits what is left of the time and size."""
    remaining = deadline - time.monotonic()
    if remaining <= 0 or max_bytes <= 0:
        return b""
    try:
        content, content_type = safe_get(url, max_bytes=max_bytes, timeout=remaining)
    except (TransportError, UnsafeTarget) as exc:
        logger.info("Link preview image %s left out: %s", url, exc)
        return b""
    return content if content_type.startswith("image/") and time.monotonic() <= deadline else b""


def link_preview_for(text: str, given: LinkPreview | None, read: bool) -> LinkPreview | None:
    """The preview a send carries: the one `given`, else (`read`) the text's first link's, else None."""
    if given is not None:
        return given
    if not read:
        return None
    url = first_link(text)
    return link_preview_read(url) if url else None


def message_send_text_preview(
    *,
    session: Session,
    to: str,
    text: str,
    preview: LinkPreview | None,
    read: bool = False,
    quoted: QuotedInput | None = None,
    mentions: tuple[str, ...] = (),
    savepoint: bool = True,
) -> Message:
    """A text send with the link preview `preview`, or (`read`) the one read from the text's first link;
    a plain text send when there is none (`mentions`: JIDs the text mentions, either way). The page is
    read only for a connected session, before the send starts (outside any transaction: call this in
    none)."""
    if preview is None and read:
        require_connected(session)
        preview = link_preview_for(text, None, True)
    if preview is None:
        return message_send_text(
            session=session, to=to, text=text, quoted=quoted, mentions=mentions, savepoint=savepoint
        )

    quote = quoted.as_quoted() if quoted else None
    outgoing = OutgoingTextPreview(to=to, text=text, preview=preview, quoted=quote, mentions=mentions)
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)
