"""Official channels over Meta's Graph API: WhatsApp Cloud API, Messenger and Instagram.

An official session needs no engine process: it is HTTP both ways. Outbound, `GraphChannelEngine`
(engine.py) implements the engine contract with Graph API calls; inbound, Meta posts signed webhooks to
`/channels/<provider>/<session_id>/webhook` (views.py), parsed (inbound.py) into the same typed events
every engine reports (messaging.engines.events), recorded and handed to the event sink.

A Django app of its own (label `channels`, apps.py), built on messaging; the messaging services reach
official sessions only through the engine contract (decision record 0020).
"""

from __future__ import annotations

WHATSAPP = "whatsapp"  # the unofficial connection (QR code or pairing code)
WHATSAPP_CLOUD = "whatsapp_cloud"
MESSENGER = "messenger"
INSTAGRAM = "instagram"

PROVIDERS = (WHATSAPP, WHATSAPP_CLOUD, MESSENGER, INSTAGRAM)
OFFICIAL_PROVIDERS = (WHATSAPP_CLOUD, MESSENGER, INSTAGRAM)
PAGE_PROVIDERS = (MESSENGER, INSTAGRAM)

CHANNEL_NAMES = {
    WHATSAPP: "WhatsApp (QR code)",
    WHATSAPP_CLOUD: "WhatsApp Cloud API",
    MESSENGER: "Messenger",
    INSTAGRAM: "Instagram",
}

#: The engine path official sessions are stored with (Session.engine).
ENGINE_PATH = "messaging.channels.engine.GraphChannelEngine"
