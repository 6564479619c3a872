"""The message fields every message event carries, as the messaging contract lists them."""

SEED_MESSAGE_FIELDS = (
    "id",
    "chat",
    "chatId",
    "remoteJid",
    "sender",
    "pushName",
    "text",
    "timestamp",
    "fromMe",
    "type",
    "mediaUrl",
)
