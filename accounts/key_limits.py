"""A key acting on keys stays inside its own limits.

A key's limits are its sessions (empty: every session), its address ranges (empty: any address) and its
expiry (none: never). Key A *covers* key B when B reaches nothing A cannot: B's sessions are among A's,
each of B's ranges lies inside one of A's, and B expires no later than A. A key creates, lists and revokes
only keys it covers; a limit not asked for when creating is the creator's. Without this rule an admin key
restricted to one session could mint an unrestricted key and reach every other session.

A signed-in customer (the account area), staff (the admin) and the shell (`issue_key`) act with no key
and are bound by none of this.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from accounts.models import ApiKey
from accounts.netaddr import Network
from core.errors import Forbidden

SESSIONS, IPS, EXPIRY = "allowed_sessions", "allowed_ips", "expires_at"


class KeyLimitExceeded(Forbidden):
    default_message = "This API key may only create, list and revoke keys no wider than itself."


@dataclass(frozen=True)
class KeyLimits:
    sessions: tuple[str, ...] = ()  # canonical session UUIDs; empty: every session
    ips: tuple[str, ...] = ()  # IPs or CIDRs as stored; empty: any address
    expires_at: datetime | None = None  # None: never

    @classmethod
    def of(cls, key: ApiKey) -> KeyLimits:
        return cls(tuple(key.allowed_sessions or ()), tuple(key.allowed_ips or ()), key.expires_at)


def _session_ids(values: tuple[str, ...]) -> set[str]:
    """Canonical UUIDs; a value stored before entries were checked stays as it is (it matches itself)."""
    ids = set()
    for value in values:
        try:
            ids.add(str(UUID(str(value))))
        except ValueError:
            ids.add(str(value))
    return ids


def _networks(values: tuple[str, ...]) -> list[Network]:
    """The ranges a list opens. An entry that is no IP or CIDR matches no address (accounts.netaddr), so
    it opens nothing and is left out."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            continue
    return networks


def _inside(network: Network, ranges: list[Network]) -> bool:
    # An IPv4-mapped IPv6 range is not inside an IPv4 one: a caller's mapped address is compared as
    # IPv4 (accounts.netaddr.address_in), so such a range would match nobody the outer one lets in.
    return any(network.version == outer.version and network.subnet_of(outer) for outer in ranges)


def sessions_beyond(outer: KeyLimits, inner: KeyLimits) -> list[str]:
    """`inner`'s sessions that `outer` cannot reach (["every session"] when inner has no list)."""
    if not outer.sessions:
        return []
    if not inner.sessions:
        return ["every session"]
    allowed = _session_ids(outer.sessions)
    return sorted(_session_ids(inner.sessions) - allowed)


def ranges_beyond(outer: KeyLimits, inner: KeyLimits) -> list[str]:
    """`inner`'s address ranges not inside one of `outer`'s (["any address"] when inner has no list)."""
    if not outer.ips:
        return []
    if not inner.ips:
        return ["any address"]
    ranges = _networks(outer.ips)
    return [str(network) for network in _networks(inner.ips) if not _inside(network, ranges)]


def expires_later(outer: KeyLimits, inner: KeyLimits) -> bool:
    if outer.expires_at is None:
        return False
    return inner.expires_at is None or inner.expires_at > outer.expires_at


def limits_beyond(outer: KeyLimits, inner: KeyLimits) -> list[str]:
    """The names of the limits in which `inner` reaches further than `outer`; empty when outer covers it."""
    wider = []
    if sessions_beyond(outer, inner):
        wider.append(SESSIONS)
    if ranges_beyond(outer, inner):
        wider.append(IPS)
    if expires_later(outer, inner):
        wider.append(EXPIRY)
    return wider


def key_covers(key: ApiKey, other: ApiKey) -> bool:
    """Whether `other` reaches nothing `key` cannot (sessions, address ranges, expiry)."""
    return not limits_beyond(KeyLimits.of(key), KeyLimits.of(other))


def limits_for_new_key(*, creator: ApiKey, requested: KeyLimits) -> KeyLimits:
    """The limits of a key that `creator` creates: a limit not asked for is the creator's; one asked for
    beyond the creator's is refused (KeyLimitExceeded, its message starting with the limit's name)."""
    own = KeyLimits.of(creator)
    limits = KeyLimits(
        sessions=requested.sessions or own.sessions,
        ips=requested.ips or own.ips,
        expires_at=requested.expires_at or own.expires_at,
    )
    if outside := sessions_beyond(own, limits):
        raise KeyLimitExceeded(
            f"{SESSIONS}: this key reaches only the sessions {', '.join(own.sessions)}, so the keys it "
            f"creates may not reach {', '.join(outside)}."
        )
    if outside := ranges_beyond(own, limits):
        raise KeyLimitExceeded(
            f"{IPS}: this key may be used only from {', '.join(own.ips)}, so the keys it creates may "
            f"not open {', '.join(outside)}."
        )
    if expires_later(own, limits):
        raise KeyLimitExceeded(
            f"{EXPIRY}: this key expires at {own.expires_at.isoformat()}, so the keys it creates must "
            "expire no later."
        )
    return limits


def require_covers(key: ApiKey, other: ApiKey) -> None:
    """Refuse (403, naming the limits) when `other` reaches further than `key`."""
    if wider := limits_beyond(KeyLimits.of(key), KeyLimits.of(other)):
        raise KeyLimitExceeded(
            f"This API key may act only on keys no wider than itself; key {other.pk} reaches further in "
            f"{' and '.join(wider)}."
        )
