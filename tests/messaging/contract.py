"""The message fields every message event carries, as the messaging contract lists them, and the customer
the messaging tests write with."""

CUSTOMER = "5511988880002"
CUSTOMER_JID = f"{CUSTOMER}@s.whatsapp.net"

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
#: Every message event also names its sender's two ids (null when unknown): messaging.services.lids.
SENDER_ID_FIELDS = ("senderPn", "senderLid")
