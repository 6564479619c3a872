"""A stand-in for neonize's client class at the library boundary: the same method names, answering
with the library's own protobuf types, recording every call. `connect()` pushes a QR code and blocks
until `stop()`, like the library's; `fire(name, event)` delivers a library event to the driver."""

from __future__ import annotations

import threading
from typing import Any

from neonize.proto import Neonize_pb2 as lib

OWN = lib.JID(
    User="5511999990001", Server="s.whatsapp.net", Device=7, RawAgent=0, Integrator=0, IsEmpty=False
)


class _Events:
    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}
        self.on_qr: Any = None

    def qr(self, func: Any) -> None:
        self.on_qr = func

    def __call__(self, event_class: type) -> Any:
        def register(func: Any) -> None:
            self.handlers[event_class.__name__] = func

        return register


class StandInClient:
    instances: list[StandInClient] = []

    def __init__(
        self, store: str, session_id: str, device_jid: str, *, fail: Exception | None = None
    ) -> None:
        self.store, self.session_id, self.device_jid = store, session_id, device_jid
        self.event = _Events()
        self.calls: list[tuple[str, tuple, dict]] = []
        self.fail = fail
        self.proxy: Any = None
        self._stopped = threading.Event()
        StandInClient.instances.append(self)

    def _record(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, args, kwargs))
        if self.fail is not None:
            raise self.fail

    def last(self, name: str) -> tuple[tuple, dict]:
        return next((a, k) for n, a, k in reversed(self.calls) if n == name)

    # life
    def connect(self, proxy: Any = None) -> None:
        self.proxy = proxy
        self.event.on_qr(self, b"2@standin-ref,noise,identity,adv")
        self._stopped.wait(30)

    def stop(self) -> None:
        self._stopped.set()

    def fire(self, name: str, event: Any) -> None:
        """The library delivers `event` (class name `name`, e.g. "Message") to its handler."""
        self.event.handlers[type(event).__name__](self, event)

    def get_me(self) -> Any:
        return lib.Device(JID=OWN, PushName="Loja")

    def logout(self) -> None:
        self._record("logout")

    def PairPhone(self, phone: str, show_push_notification: bool = False) -> str:  # the library's own name
        self._record("PairPhone", phone, show_push_notification)
        return "ABCD-EFGH"

    # operations
    def send_message(self, to: Any, message: Any) -> Any:
        self._record("send_message", to, message)
        return lib.SendResponse(ID="3EB0STANDIN0001", Timestamp=1763800000)

    def revoke_message(self, chat: Any, sender: Any, message_id: str) -> Any:
        self._record("revoke_message", chat, sender, message_id)
        return lib.SendResponse(ID="3EB0REVOKE", Timestamp=1763800000)

    def upload(self, data: bytes, media_type: Any = None) -> Any:
        self._record("upload", data, media_type)
        return lib.UploadResponse(
            url="https://mmg.example/enc",
            DirectPath="/v/t62/enc",
            MediaKey=b"k" * 32,
            FileEncSHA256=b"e" * 32,
            FileSHA256=b"s" * 32,
            FileLength=len(data),
        )

    def download_any(self, message: Any) -> bytes:
        return b"downloaded-bytes:" + message.SerializeToString()[:16]

    def mark_read(self, *ids: str, chat: Any, sender: Any, receipt: Any) -> None:
        self._record("mark_read", *ids, chat=chat, sender=sender, receipt=receipt)

    def send_presence(self, presence: Any) -> None:
        self._record("send_presence", presence)

    def send_chat_presence(self, jid: Any, state: Any, media: Any) -> None:
        self._record("send_chat_presence", jid, state, media)

    def is_on_whatsapp(self, *numbers: str) -> list[Any]:
        self._record("is_on_whatsapp", *numbers)
        return [
            lib.IsOnWhatsAppResponse(
                Query=n, IsIn=not n.endswith("0000"), JID=lib.JID(User=n.lstrip("+"), Server="s.whatsapp.net")
            )
            for n in numbers
        ]

    def set_profile_photo(self, data: bytes) -> str:
        self._record("set_profile_photo", data)
        return "id"

    def set_group_photo(self, jid: Any, data: bytes) -> str:
        self._record("set_group_photo", jid, data)
        return "id"

    def set_status_message(self, text: str) -> None:
        self._record("set_status_message", text)

    def set_profile_name(self, text: str) -> str:
        self._record("set_profile_name", text)
        return text

    def group_info(self, subject: str, members: list[Any]) -> Any:
        participants = [lib.GroupParticipant(JID=OWN, IsSuperAdmin=True)] + [
            lib.GroupParticipant(JID=m) for m in members
        ]
        return lib.GroupInfo(
            JID=lib.JID(User="120363000000000001", Server="g.us"),
            OwnerJID=OWN,
            GroupName=lib.GroupName(Name=subject, NameSetAt=1763800000),
            GroupCreated=1763800000,
            Participants=participants,
        )

    def create_group(self, name: str, participants: list[Any]) -> Any:
        self._record("create_group", name, participants)
        return self.group_info(name, participants)

    def get_joined_groups(self) -> list[Any]:
        self._record("get_joined_groups")
        return [self.group_info("Equipe", [lib.JID(User="5511988880002", Server="s.whatsapp.net")])]

    def leave_group(self, jid: Any) -> None:
        self._record("leave_group", jid)

    def update_group_participants(self, jid: Any, participants: list[Any], action: Any) -> list[Any]:
        self._record("update_group_participants", jid, participants, action)
        return [
            lib.GroupParticipant(JID=p, Error=404 if p.User.endswith("0000") else 0) for p in participants
        ]


class PollingStandInClient(StandInClient):
    """The stand-in with the library's poll and edit calls. `votes` holds what `decrypt_poll_vote`
    answers (the option names chosen; the library gives their SHA-256)."""

    votes: list[list[str]] = []

    def build_poll_vote_creation(self, name: str, options: list[str], selectable_count: Any) -> Any:
        from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa

        self._record("build_poll_vote_creation", name, options, selectable_count)
        poll = wa.PollCreationMessage(
            name=name,
            options=[wa.PollCreationMessage.Option(optionName=o) for o in options],
            selectableOptionsCount=selectable_count.value,
        )
        return wa.Message(
            pollCreationMessage=poll, messageContextInfo=wa.MessageContextInfo(messageSecret=b"s" * 32)
        )

    def edit_message(self, chat: Any, message_id: str, new_message: Any) -> Any:
        self._record("edit_message", chat, message_id, new_message)
        return lib.SendResponse(ID="3EB0EDIT", Timestamp=1763800000)

    def decrypt_poll_vote(self, message: Any) -> Any:
        import hashlib

        from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa

        self._record("decrypt_poll_vote", message)
        chosen = self.votes.pop(0) if self.votes else []
        return wa.PollVoteMessage(selectedOptions=[hashlib.sha256(n.encode()).digest() for n in chosen])
