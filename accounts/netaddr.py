"""Client addresses and IP/CIDR allow-lists."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(values: list[str]) -> list[Network]:
    """Parse IPs or CIDRs; raise ValueError naming the first bad one."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            raise ValueError(f"{value!r} is not an IP address or CIDR") from None
    return networks


def address_in(address: str, networks: list[str]) -> bool:
    """Whether `address` falls in one of `networks`. An entry that is no IP or CIDR (an allow-list stored
    before entries were checked) matches nothing: the list stays closed rather than failing the call."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    for value in networks:
        try:
            if ip in ipaddress.ip_network(str(value).strip(), strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request: HttpRequest) -> str:
    """The caller's address: REMOTE_ADDR, or, behind a trusted proxy, the nearest untrusted hop."""
    return client_address_of(
        remote_addr=request.META.get("REMOTE_ADDR", ""),
        forwarded_for=request.META.get("HTTP_X_FORWARDED_FOR", ""),
    )


def client_address_of(*, remote_addr: str, forwarded_for: str) -> str:
    """The caller's address from the peer address and the X-Forwarded-For value.

    X-Forwarded-For is read right to left and only while each hop is one of PONTE_TRUSTED_PROXIES,
    so a client cannot choose its own address by sending the header itself.
    """
    remote = remote_addr
    trusted = settings.PONTE_TRUSTED_PROXIES
    if not trusted or not address_in(remote, trusted):
        return remote
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not address_in(hop, trusted):
            return hop
    return hops[0] if hops else remote
