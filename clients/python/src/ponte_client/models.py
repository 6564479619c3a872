"""What the API returns, as typed objects. Fields keep the API's names in snake_case; `raw` keeps the
whole JSON object for fields added later."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


@dataclass(frozen=True)
class Bond:
    name: str
    bank: int
    bank_name: str
    product: str
    index: str
    rate: float
    fgc_protection: bool
    tax_free: bool
    exclusive: bool
    min_investment: float
    maturity_date: date
    early_withdrawal: bool
    rating: str | None
    payment_probability: float | None
    net_annualized_return: float | None
    real_annualized_return: float | None
    # JSON-only fields (the CSV keeps the contract's columns): days to redeem, days before any redemption,
    # and the share of the projected CDI a taxed CDB must pay to net the same.
    liquidity_days: int | None = None
    grace_period_days: int | None = None
    net_return_cdi_percent: float | None = None
    # The offer's id, kept across refreshes (what the MCP tool project_bond takes); None from a server
    # that predates it.
    id: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Bond:
        # Fields a newer server adds stay readable in `raw` instead of breaking older clients.
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data and name != "raw"}
        return cls(**{**known, "maturity_date": date.fromisoformat(data["maturity_date"]), "raw": data})


@dataclass(frozen=True)
class BondList:
    status: str  # "ok" or "preview"
    description: str
    bonds: list[Bond]


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    total: int
    page: int
    limit: int
    total_pages: int


@dataclass(frozen=True)
class Session:
    id: str
    name: str
    status: str  # disconnected, qr, connected
    engine: str
    jid: str | None
    phone: str | None
    created_at: datetime | None
    instance_key: str | None = None  # admin keys, only in the reply that issued it
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Session:
        return cls(
            id=data["id"],
            name=data["name"],
            status=data["status"],
            engine=data.get("engine", ""),
            jid=data.get("jid"),
            phone=data.get("phone"),
            created_at=_dt(data.get("createdAt")),
            instance_key=data.get("instanceKey"),
            raw=data,
        )


@dataclass(frozen=True)
class Connection:
    session_id: str
    status: str
    qr_code: str | None
    expires_at: datetime | None
    message: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Connection:
        return cls(
            data["sessionId"], data["status"], data.get("qrCode"), _dt(data.get("expiresAt")), data["message"]
        )


@dataclass(frozen=True)
class QrCode:
    session_id: str
    qr_code: str
    image: str  # PNG as a data URI
    expires_at: datetime | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QrCode:
        return cls(data["sessionId"], data["qrCode"], data["qrCodeImage"], _dt(data.get("expiresAt")))


@dataclass(frozen=True)
class PairingCode:
    session_id: str
    phone_number: str
    pairing_code: str
    expires_at: datetime | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairingCode:
        return cls(data["sessionId"], data["phoneNumber"], data["pairingCode"], _dt(data.get("expiresAt")))


@dataclass(frozen=True)
class SentMessage:
    message_id: str
    status: str
    to: str
    timestamp: datetime | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SentMessage:
        return cls(data["messageId"], data["status"], data["to"], _dt(data.get("timestamp")), data)


@dataclass(frozen=True)
class PollOption:
    name: str
    count: int
    voters: list[str]


@dataclass(frozen=True)
class PollResults:
    """A poll's options with their votes (each voter's last vote counts)."""

    message_id: str
    name: str
    options: list[PollOption]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PollResults:
        options = [PollOption(o["name"], int(o["count"]), list(o["voters"])) for o in data["options"]]
        return cls(data["messageId"], data["name"], options)


@dataclass(frozen=True)
class Webhook:
    id: str
    session_id: str
    url: str
    events: list[str]
    retry_count: int
    has_secret: bool
    created_at: datetime | None
    status: str = "active"
    disabled_reason: str | None = None
    header_names: list[str] = field(default_factory=list)
    # Custom headers with their values: only in replies to admin keys (None otherwise).
    headers: dict[str, str] | None = None
    # Deliveries per second at most; None: no limit.
    rate_limit: int | None = None
    # "seed", "extended" or the delays in seconds between attempts.
    retry_schedule: str | list[int] = "seed"
    # Conditions on the delivered body (the gateway's `filter`); None: every event.
    body_filter: dict[str, Any] | None = None
    # "parallel", or "fifo": a chat's next event waits until its previous one is delivered or dead.
    ordering: str = "parallel"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Webhook:
        return cls(
            data["id"],
            data["sessionId"],
            data["url"],
            list(data["events"]),
            data["retryCount"],
            data["hasSecret"],
            _dt(data.get("createdAt")),
            data.get("status", "active"),
            data.get("disabledReason"),
            list(data.get("headerNames") or []),
            data.get("headers"),
            data.get("rateLimit"),
            data.get("retrySchedule", "seed"),
            data.get("filter"),
            data.get("ordering", "parallel"),
        )
