"""The optional operations of the engine contract by name: engines without them answer
EngineUnsupported, and engine processes carry them like the others (messaging.engines.remote).
messaging.engines.base re-exports them."""

from __future__ import annotations

from messaging.engines.chat_contract import CHAT_ACTION_COMMANDS

#: The optional operations of group administration, contacts' pictures and settings (they travel to
#: engine processes like the others: messaging.engines.remote).
GROUP_ADMIN_COMMANDS = (
    "group_participants_add",
    "group_participants_remove",
    "group_set_subject",
    "group_set_description",
    "group_set_settings",
    "group_invite",
    "group_join",
    "contact_picture",
    "settings_apply",
    *CHAT_ACTION_COMMANDS,
)
#: Status (stories), optional like group administration (issue 41).
STATUS_COMMANDS = ("status_text", "status_media", "status_delete")
#: Channels (newsletters), optional too.
NEWSLETTER_COMMANDS = ("newsletter_list", "newsletter_create", "newsletter_follow", "newsletter_unfollow")
#: The optional operations of WhatsApp's linked ids (messaging.services.lids), which travel too.
LID_COMMANDS = ("lid_lookup",)
