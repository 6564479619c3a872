"""The WhatsApp driver's channels (newsletters) against a stand-in of neonize's client answering with the
library's own `NewsletterMetadata`: roles from `ViewerMeta.Role`, follow by JID or invite, unfollow, and
media posts refused (neonize 0.5.2 cannot pass the upload handle channels need)."""

from __future__ import annotations

from typing import Any

import pytest
from neonize.proto import Neonize_pb2 as lib

from messaging.engines.base import (
    EngineUnsupported,
    MediaPayload,
    NewsletterInfo,
    OutgoingMedia,
    OutgoingText,
)
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Session
from tests.messaging.whatsapp_standin import StandInClient

pytestmark = pytest.mark.django_db

CHANNEL = "120363111111111111@newsletter"


def metadata(jid: str, name: str, role: int) -> lib.NewsletterMetadata:
    user, _, server = jid.partition("@")
    return lib.NewsletterMetadata(
        ID=lib.JID(User=user, Server=server),
        ThreadMeta=lib.NewsletterThreadMetadata(
            Name=lib.NewsletterText(Text=name),
            Description=lib.NewsletterText(Text="sobre"),
            InviteCode="0029VaAbCd",
        ),
        ViewerMeta=lib.NewsletterViewerMetadata(Role=role),
    )


class NewsletterStandIn(StandInClient):
    def create_newsletter(self, name: str, description: str, picture: Any) -> Any:
        self._record("create_newsletter", name, description, picture)
        return metadata(CHANNEL, name, lib.NewsletterRole.OWNER)

    def get_subscribed_newletters(self) -> list[Any]:  # neonize's spelling
        self._record("get_subscribed_newletters")
        return [
            metadata(CHANNEL, "Minha", lib.NewsletterRole.OWNER),
            metadata("120363222222222222@newsletter", "Outra", lib.NewsletterRole.SUBSCRIBER),
        ]

    def get_newsletter_info_with_invite(self, key: str) -> Any:
        self._record("get_newsletter_info_with_invite", key)
        return metadata("120363222222222222@newsletter", "Outra", lib.NewsletterRole.GUEST)

    def follow_newsletter(self, jid: Any) -> None:
        self._record("follow_newsletter", jid)

    def get_newsletter_info(self, jid: Any) -> Any:
        return metadata(f"{jid.User}@{jid.Server}", "Outra", lib.NewsletterRole.SUBSCRIBER)

    def unfollow_newsletter(self, jid: Any) -> None:
        self._record("unfollow_newsletter", jid)


@pytest.fixture
def wired(account, settings):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    clients = {}

    def factory(*args):
        clients[args[1]] = NewsletterStandIn(*args)
        return clients[args[1]]

    driver = WhatsAppDriver(on_event=lambda sid, ev: None, client_factory=factory)
    sid = str(Session.objects.create(account=account, name="wa").pk)
    driver.connect(sid)
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid]
    driver.stop(sid)


def test_channels_are_listed_created_followed_and_unfollowed_through_neonize(wired):
    driver, sid, client = wired
    assert driver.newsletter_list(sid) == [
        NewsletterInfo(CHANNEL, "Minha", "sobre", "0029VaAbCd", "owner"),
        NewsletterInfo("120363222222222222@newsletter", "Outra", "sobre", "0029VaAbCd", "follower"),
    ]
    created = driver.newsletter_create(sid, "Minha", "sobre")
    assert created.role == "owner" and client.last("create_newsletter")[0] == ("Minha", "sobre", b"")
    followed = driver.newsletter_follow(sid, invite="https://whatsapp.com/channel/0029VaAbCd")
    assert client.last("get_newsletter_info_with_invite")[0] == ("0029VaAbCd",)
    assert followed.jid == "120363222222222222@newsletter" and followed.role == "follower"
    assert client.last("follow_newsletter")[0][0].Server == "newsletter"
    driver.newsletter_follow(sid, jid=CHANNEL)
    assert client.last("follow_newsletter")[0][0].User == "120363111111111111"
    driver.newsletter_unfollow(sid, CHANNEL)
    assert client.last("unfollow_newsletter")[0][0].User == "120363111111111111"


def test_text_posts_go_to_the_channel_and_media_posts_are_refused(wired):
    driver, sid, client = wired
    driver.send_text(sid, OutgoingText(to=CHANNEL, text="Abrimos às 9h"))
    to, message = client.last("send_message")[0]
    assert (to.User, to.Server, message.conversation) == ("120363111111111111", "newsletter", "Abrimos às 9h")
    with pytest.raises(EngineUnsupported, match="not media"):
        media = MediaPayload(type="image", data=b"x", mime_type="image/jpeg")
        driver.send_media(sid, OutgoingMedia(to=CHANNEL, media=media))
