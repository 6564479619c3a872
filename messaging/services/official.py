"""Where the services hand an official-channel session (`session.official`) to the channels.

The official channels (messaging/channels/) build on these services. Sends go through the engine
contract like every engine's (GraphChannelEngine applies the 24-hour window itself, and takes media by
link); the few other operations that take another path for an official session (read receipts, a
revoked token, a channel's name) go through this one table, which the channels fill when the app starts
(MessagingConfig.ready): the services never import the channels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class OfficialChannels:
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
