"""The official channels' entries in the services' table (messaging.services.official)."""

from __future__ import annotations

from messaging.channels import CHANNEL_NAMES
from messaging.channels.sending import channel_mark_read
from messaging.channels.services import channel_disconnect
from messaging.services.official import OfficialChannels, official_channels_register


def register() -> None:
    official_channels_register(
        OfficialChannels(
            mark_read=channel_mark_read,
            disconnect=channel_disconnect,
            name=lambda provider: CHANNEL_NAMES.get(provider, provider),
        )
    )
