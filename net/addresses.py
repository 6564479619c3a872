"""Which IP addresses Ponte may connect to on a customer's say-so, and resolving a host to those.

An address is refused unless it is an ordinary public internet address: loopback, private, link-local,
multicast, and every range of IANA's IPv4 and IPv6 special-purpose registries are refused, including the
ones Python's `ipaddress` calls global (PCP/TURN anycast in 192.0.0.0/24, AS112, AMT, ORCHIDv2, SRv6
SIDs, the 3fff::/20 documentation range...). IPv6 addresses that carry an IPv4 address are judged by
what they carry: 6to4 (2002::/16) and NAT64 (64:ff9b::/96, e.g. DNS64 on an IPv6-only network) reach
the embedded IPv4 address, so `2002:a9fe:a9fe::` is the metadata address 169.254.169.254 in disguise and
is refused, while the 6to4 or NAT64 form of a public address is not. Teredo (2001::/32), IPv4-mapped
(::ffff:0:0/96) and IPv4-compatible (::/96) addresses, the local-use NAT64 prefix 64:ff9b:1::/48 and
the deprecated site-local fec0::/10 are refused outright.

`PONTE_WEBHOOK_ALLOW_NETWORKS` (CIDRs) opens ranges for tests and self-hosted LANs; an allow-listed
IPv4 network also opens the IPv6 forms that embed its addresses.
"""

from __future__ import annotations

import ipaddress
import socket

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class RefusedAddress(OSError):
    """A host resolves to a refused address, or does not resolve. An OSError, so when raised while
    urllib3 opens a connection it is a failed connection, never retried elsewhere. The message holds
    the details (host, address, why) for the logs, not for the caller."""


def _networks(*cidrs: str) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


# (label, ranges): IANA IPv4 Special-Purpose Address Registry, plus multicast and 240/4.
_IPV4_SPECIAL: tuple[tuple[str, tuple[Network, ...]], ...] = (
    ("'this network'", _networks("0.0.0.0/8")),
    ("private", _networks("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")),
    ("shared (carrier-grade NAT)", _networks("100.64.0.0/10")),
    ("loopback", _networks("127.0.0.0/8")),
    ("link-local (cloud metadata)", _networks("169.254.0.0/16")),
    ("IETF protocol assignment (DS-Lite, PCP, TURN, NAT64 discovery)", _networks("192.0.0.0/24")),
    ("documentation", _networks("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")),
    ("AS112 / AMT / 6to4 relay anycast", _networks("192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24")),
    ("AS112 direct delegation", _networks("192.175.48.0/24")),
    ("benchmarking", _networks("198.18.0.0/15")),
    ("multicast", _networks("224.0.0.0/4")),
    ("reserved or broadcast", _networks("240.0.0.0/4")),
)

# IANA IPv6 Special-Purpose Address Registry, plus multicast and site-local. The translation ranges
# that carry an IPv4 address (6to4, NAT64, Teredo) are handled before this table.
_IPV6_SPECIAL: tuple[tuple[str, tuple[Network, ...]], ...] = (
    ("unspecified, loopback or IPv4-compatible", _networks("::/96")),
    ("IPv4-mapped", _networks("::ffff:0:0/96")),
    ("IPv4/IPv6 translation (local use)", _networks("64:ff9b:1::/48")),
    ("discard-only or dummy", _networks("100::/64", "100:0:0:1::/64")),
    ("IETF protocol assignment (PCP, TURN, AMT, AS112, ORCHID, benchmarking)", _networks("2001::/23")),
    ("documentation", _networks("2001:db8::/32", "3fff::/20")),
    ("AS112 direct delegation", _networks("2620:4f:8000::/48")),
    ("segment routing (SRv6 SID)", _networks("5f00::/16")),
    ("unique-local (private)", _networks("fc00::/7")),
    ("link-local", _networks("fe80::/10")),
    ("site-local (deprecated)", _networks("fec0::/10")),
    ("multicast", _networks("ff00::/8")),
    ("reserved", _networks("::/8")),
)

_6TO4 = ipaddress.ip_network("2002::/16")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_TEREDO = ipaddress.ip_network("2001::/32")


def allowed_networks() -> list[Network]:
    return [ipaddress.ip_network(cidr, strict=False) for cidr in settings.PONTE_WEBHOOK_ALLOW_NETWORKS]


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address reaches through a translation mechanism (none for most)."""
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address in _6TO4:
        return [address.sixtofour] if address.sixtofour is not None else []
    if address in _NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    if address in _TEREDO and address.teredo is not None:
        server, client = address.teredo
        return [server, client]
    return []


def _special_label(address: IPAddress) -> str | None:
    table = _IPV4_SPECIAL if isinstance(address, ipaddress.IPv4Address) else _IPV6_SPECIAL
    for label, networks in table:
        if any(address in network for network in networks):
            return label
    return None


def address_refusal(address: IPAddress, *, allowed: list[Network] | None = None) -> str | None:
    """Why `address` may not be reached (for the logs), or None when it may."""
    allowed = allowed_networks() if allowed is None else allowed
    if any(address in network for network in allowed if network.version == address.version):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        if mapped is not None:  # refused whatever it carries, unless its IPv4 network is allow-listed
            if any(mapped in network for network in allowed if network.version == 4):
                return None
            return f"{address} is an IPv4-mapped address"
        carried = embedded_ipv4(address)
        for ipv4 in carried:
            reason = address_refusal(ipv4, allowed=allowed)
            if reason is not None:
                return f"{address} embeds {ipv4}: {reason}"
        if address in _TEREDO:
            return f"{address} is a Teredo address"
        if carried:
            return None  # 6to4 or NAT64 (DNS64) form of a public IPv4 address
    label = _special_label(address)
    if label is not None:
        return f"{address} is a {label} address"
    if not address.is_global:  # a backstop for any range the tables above miss
        return f"{address} is not a public internet address"
    return None


def resolve_vetted(host: str, port: int) -> list[str]:
    """Resolve `host` and return its addresses in resolver order, duplicates removed.

    Raises RefusedAddress when the host does not resolve or when any of its addresses is refused: a
    name that also points inside the network is not trusted with its public addresses either.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise RefusedAddress(f"cannot resolve {host!r}: {exc}") from None
    allowed = allowed_networks()
    addresses: list[str] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        reason = address_refusal(address, allowed=allowed)
        if reason:
            raise RefusedAddress(f"{host!r} resolves to a refused address: {reason}")
        if str(address) not in addresses:
            addresses.append(str(address))
    if not addresses:
        raise RefusedAddress(f"{host!r} resolves to no address")
    return addresses
