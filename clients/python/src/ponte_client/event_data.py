"""The `data` of each body registered webhooks receive, as `TypedDict`s (keys as sent, camelCase;
keys marked NotRequired are sent only when set). The bodies and names are in ponte_client.events."""

# No `from __future__ import annotations`: TypedDict reads NotRequired only from evaluated annotations.
from typing import Literal, NotRequired, TypedDict


class MessageLocation(TypedDict):
    latitude: float
    longitude: float
    name: str
    address: str


class ContactCard(TypedDict):
    """A contact card of a `contacts` message: the fields, the vCard, or both."""

    displayName: str
    phoneNumber: str
    organization: NotRequired[str]
    vcard: NotRequired[str]


class MessageReaction(TypedDict):
    """A `reaction` message: the message reacted to, and the emoji ("" removes the reaction)."""

    messageId: str
    emoji: str


class MessageQuoted(TypedDict):
    messageId: str
    participant: str


class MessageButton(TypedDict):
    buttonId: str
    buttonText: str


class ListRow(TypedDict):
    rowId: str
    title: str
    description: str


class ListSection(TypedDict):
    title: str
    rows: list[ListRow]


class MessageList(TypedDict):
    """A `list` message: the button that opens it, its title and footer, its sections of rows (the
    body is the message's `text`)."""

    buttonText: str
    title: str
    footer: str
    sections: list[ListSection]


class MessageListResponse(TypedDict):
    """A `list_response` message: the row the customer chose."""

    rowId: str
    title: str
    description: str


class MessageLinkPreview(TypedDict):
    """The link preview shown with a text."""

    url: str
    title: str
    description: str


class MessagePoll(TypedDict):
    """A `poll` message: the question, the option names in order, how many a voter may choose."""

    name: str
    options: list[str]
    selectableCount: int


class MessageData(TypedDict):
    """A message in a chat: received, sent by the session (`from_me`), or synced history (`is_history`)."""

    id: str
    chat: str
    sender: str
    pushName: str
    text: str
    timestamp: int
    fromMe: bool
    type: Literal[
        "text",
        "image",
        "video",
        "audio",
        "document",
        "sticker",
        "location",
        "contacts",
        "reaction",
        "buttons",
        "button_reply",
        "list_reply",
        "button",
        "revoked",
        "poll",
        "list",
        "list_response",
    ]
    mediaUrl: str | None
    isHistory: NotRequired[bool]
    senderPn: str | None  # the sender's phone JID, None when unknown
    senderLid: str | None  # the sender's linked id (…@lid), None when unknown
    mentions: NotRequired[list[str]]  # the JIDs the message mentions
    chatName: NotRequired[str]
    mediaId: NotRequired[str]
    mimeType: NotRequired[str]
    sha256: NotRequired[str]
    caption: NotRequired[str]
    fileName: NotRequired[str]
    size: NotRequired[int]
    voice: NotRequired[bool]
    seconds: NotRequired[int]
    waveform: NotRequired[list[int]]
    animated: NotRequired[bool]
    viewOnce: NotRequired[bool]
    stickerId: NotRequired[str]
    location: NotRequired[MessageLocation]
    contacts: NotRequired[list[ContactCard]]
    displayName: NotRequired[str]
    reaction: NotRequired[MessageReaction]
    quoted: NotRequired[MessageQuoted]
    buttons: NotRequired[list[MessageButton]]
    footer: NotRequired[str]
    selectedId: NotRequired[str]
    selectedTitle: NotRequired[str]
    selectedDescription: NotRequired[str]
    revokedMessageId: NotRequired[str]
    revokedSender: NotRequired[str]
    revokedFromMe: NotRequired[bool]
    poll: NotRequired[MessagePoll]
    list: NotRequired[MessageList]
    listResponse: NotRequired[MessageListResponse]
    linkPreview: NotRequired[MessageLinkPreview]
    forwarded: NotRequired[bool]
    chatId: str
    remoteJid: str


# A sent message was delivered, read, played, or failed (`error` says why).
MessageAckData = TypedDict(
    "MessageAckData",
    {
        "messageId": str,
        "chat": str,
        "status": str,
        "from": str,
        "participant": NotRequired[str],
        "error": NotRequired[str],
        "timestamp": NotRequired[int],
    },
)


class ConnectedData(TypedDict):
    jid: str
    phone: str
    pushName: str
    platform: str
    timestamp: NotRequired[int]


class DisconnectedData(TypedDict):
    reason: str
    timestamp: NotRequired[int]


class QrData(TypedDict):
    """A new QR code to scan (`serial` counts the codes of this pairing attempt)."""

    qrCode: str
    expiresAt: str
    serial: int
    image: NotRequired[str]
    timestamp: NotRequired[int]


class GroupMember(TypedDict):
    jid: str
    admin: bool


class GroupJoinData(TypedDict):
    group: str
    participants: list[str]
    by: str
    subject: str
    subjectTime: int
    creation: int
    owner: str
    members: list[GroupMember]
    timestamp: NotRequired[int]
    changed: NotRequired[list[str]]
    description: NotRequired[str]
    announce: NotRequired[bool]
    locked: NotRequired[bool]


class GroupLeaveData(TypedDict):
    group: str
    participants: list[str]
    by: str
    subject: str
    subjectTime: int
    creation: int
    owner: str
    members: list[GroupMember]
    timestamp: NotRequired[int]
    changed: NotRequired[list[str]]
    description: NotRequired[str]
    announce: NotRequired[bool]
    locked: NotRequired[bool]


CallData = TypedDict(
    "CallData",
    {
        "from": str,
        "callId": NotRequired[str],
        "video": bool,
        "status": str,
        "isGroup": bool,
        "pushName": NotRequired[str],
        "rejectMessage": NotRequired[str],
        "timestamp": NotRequired[int],
    },
)


PresenceData = TypedDict(
    "PresenceData",
    {
        "from": str,
        "presence": str,
        "chat": NotRequired[str],
        "lastSeen": NotRequired[int],
        "timestamp": NotRequired[int],
    },
)


class ChatArchiveData(TypedDict):
    chat: str
    archived: bool
    timestamp: NotRequired[int]


class ChatPinData(TypedDict):
    chat: str
    pinned: bool
    timestamp: NotRequired[int]


class ChatMuteData(TypedDict):
    chat: str
    mutedUntil: str | None  # ISO 8601; None: unmuted
    timestamp: NotRequired[int]


class ChatUnreadData(TypedDict):
    chat: str
    unread: bool
    timestamp: NotRequired[int]


class ContactBlockData(TypedDict):
    jid: str
    blocked: bool
    timestamp: NotRequired[int]


class LabelEditData(TypedDict):
    labelId: str
    name: str
    color: int  # 0 to 19
    deleted: bool
    timestamp: NotRequired[int]


class LabelAssociationData(TypedDict):
    labelId: str
    chat: str
    labeled: bool
    timestamp: NotRequired[int]


class GroupUpdateData(TypedDict):
    group: str
    participants: list[str]
    by: str
    subject: str
    subjectTime: int
    creation: int
    owner: str
    members: list[GroupMember]
    timestamp: NotRequired[int]
    changed: NotRequired[list[str]]
    description: NotRequired[str]
    announce: NotRequired[bool]
    locked: NotRequired[bool]


class HealthData(TypedDict):
    """Whether the account can send (`AVAILABLE`, `LIMITED`, `BLOCKED`) and why."""

    status: str
    reason: str
    timestamp: NotRequired[int]


class PollVoteData(TypedDict):
    """A vote in a poll: the voter's whole current choice (option names; empty: the vote was cleared)."""

    pollMessageId: str
    voter: str
    selectedOptions: list[str]
    chat: str
    timestamp: NotRequired[int]


class MessageEditedData(TypedDict):
    """A text message was edited, by the session (`from_me`) or by its author on the other side."""

    messageId: str
    chat: str
    text: str
    editedAt: str
    fromMe: bool
    sender: NotRequired[str]


class WebhookDisabledData(TypedDict):
    webhookId: str  # the webhook that was disabled, not the one receiving this
    sessionId: str
    url: str
    reason: str
    disabledAt: str | None


class WebhookDeadLetterData(TypedDict):
    deliveryId: int  # GET /gateway/deliveries/{id}
    eventId: str  # the dead delivery's webhook-id
    event: str
    webhookId: str  # the webhook whose delivery died, not the one receiving this
    sessionId: str
    deadAt: str


class WebhookTestData(TypedDict):
    webhookId: str
    message: str


class StatusData(TypedDict):
    """A status (story): a contact's, seen by the session, or the session's own posted from the phone
    (`fromMe`); `revoked`: its author deleted the status `id`."""

    id: str
    sender: str
    pushName: str
    type: Literal["text", "image", "video", "revoked"]
    text: str
    timestamp: int
    fromMe: bool
    backgroundColor: NotRequired[str]
    font: NotRequired[int]
    caption: NotRequired[str]
    mediaUrl: NotRequired[str]
    mimeType: NotRequired[str]
    sha256: NotRequired[str]
    size: NotRequired[int]
