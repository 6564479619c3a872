"""Where the services hand an official-channel session (`session.official`) to the channels.

The official channels (messaging/channels/) build on these services. The few operations that take
another path for an official session (text within the 24-hour window, media by link, read receipts, a
revoked token) go through this one table, which the channels fill when the app starts
(MessagingConfig.ready): the services never import the channels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from messaging.models import Message


@dataclass(frozen=True)
class OfficialChannels:
    #: `(session=, to=, text=, quoted=)`: text honouring the customer service window.
    send_text: Callable[..., Message]
    #: `(session=, to=, kind=, url=, caption=, file_name=)`: media the channel fetches by link.
    send_media: Callable[..., Message]
    #: `(session=, chat=, message_id=, typing=)`: one message (and all before it) read.
    mark_read: Callable[..., None]
    #: `(session_id=, reason=)`: the channel refused the session's token.
    disconnect: Callable[..., None]
    #: A provider's name for people (`whatsapp_cloud` → "WhatsApp Cloud API").
    name: Callable[[str], str]


_channels: OfficialChannels | None = None


def official_channels_register(channels: OfficialChannels) -> None:
    global _channels
    _channels = channels


def official_channels() -> OfficialChannels:
    if _channels is None:
        raise RuntimeError("The official channels register at app start (MessagingConfig.ready).")
    return _channels
