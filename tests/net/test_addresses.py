"""Which addresses the SSRF rules refuse: one case per class of address, at registration (the URL
check) and in the address policy itself, and what the allow-list opens."""

from __future__ import annotations

import ipaddress

import pytest
from django.test import override_settings

from net.addresses import address_refusal, embedded_ipv4
from net.transport import REFUSED_MESSAGE, UnsafeTarget, validate_target_url

# (address, a word of the logged reason): one per class of refused address.
REFUSED = [
    ("0.0.0.0", "this network"),
    ("0.1.2.3", "this network"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.10", "private"),
    ("100.64.0.1", "carrier-grade"),
    ("127.0.0.1", "loopback"),
    ("169.254.169.254", "link-local"),
    ("192.0.0.1", "IETF protocol"),  # DS-Lite
    ("192.0.0.9", "IETF protocol"),  # PCP anycast: Python calls it global
    ("192.0.0.10", "IETF protocol"),  # TURN anycast: Python calls it global
    ("192.0.0.170", "IETF protocol"),  # NAT64/DNS64 discovery
    ("192.0.2.1", "documentation"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"),
    ("192.31.196.1", "AS112"),  # Python calls it global
    ("192.52.193.1", "AMT"),  # Python calls it global
    ("192.88.99.1", "6to4 relay"),  # Python calls it global
    ("192.175.48.1", "AS112"),  # Python calls it global
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.254", "benchmarking"),
    ("224.0.0.1", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("::a9fe:a9fe", "IPv4-compatible"),
    ("::ffff:127.0.0.1", "IPv4-mapped"),
    ("::ffff:8.8.8.8", "IPv4-mapped"),  # refused whatever it carries
    ("2002:a9fe:a9fe::", "embeds 169.254.169.254"),  # 6to4 of the metadata address
    ("2002:7f00:1::", "embeds 127.0.0.1"),  # 6to4 of loopback
    ("2002:0a00:0001::", "embeds 10.0.0.1"),
    ("64:ff9b::a9fe:a9fe", "embeds 169.254.169.254"),  # NAT64 of the metadata address
    ("64:ff9b::10.0.0.1", "embeds 10.0.0.1"),
    ("64:ff9b:1::1", "local use"),  # local-use NAT64, whatever it carries
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "embeds 10.0.0.1"),  # Teredo, client 10.0.0.1
    ("2001:0:5db8:d822::a247:27dd", "Teredo"),  # Teredo with public parts: still refused
    ("100::1", "discard-only"),
    ("100:0:0:1::1", "dummy"),
    ("2001:1::1", "IETF protocol"),  # PCP anycast
    ("2001:2::1", "IETF protocol"),  # benchmarking
    ("2001:3::1", "IETF protocol"),  # AMT
    ("2001:4:112::1", "IETF protocol"),  # AS112-v6
    ("2001:20::1", "IETF protocol"),  # ORCHIDv2
    ("2001:30::1", "IETF protocol"),  # drone remote ID
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),  # Python calls it global
    ("2620:4f:8000::1", "AS112"),  # Python calls it global
    ("5f00::1", "SRv6"),
    ("fd00::1", "unique-local"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local"),  # Python calls it global
    ("ff02::1", "multicast"),
]


@pytest.mark.parametrize(("address", "reason"), REFUSED)
def test_every_special_purpose_address_class_is_refused_with_its_reason(address: str, reason: str) -> None:
    refusal = address_refusal(ipaddress.ip_address(address), allowed=[])
    assert refusal is not None and reason.lower() in refusal.lower(), refusal


@pytest.mark.parametrize(("address", "_reason"), REFUSED)
def test_registration_refuses_every_class_with_a_generic_message(address: str, _reason: str) -> None:
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(UnsafeTarget) as refused:
        validate_target_url(f"http://{host}/hook")
    assert refused.value.message == REFUSED_MESSAGE  # no address, no reason: those go to the logs


@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "8.8.8.8",
        "2606:2800:220:1:248:1893:25c8:1946",
        "2002:5db8:d822::1",  # 6to4 of 93.184.216.34
        "64:ff9b::5db8:d822",  # NAT64 (DNS64) of 93.184.216.34
    ],
)
def test_public_addresses_and_their_translated_forms_are_accepted(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address), allowed=[]) is None
    validate_target_url(f"http://{f'[{address}]' if ':' in address else address}/hook")


def test_the_embedded_ipv4_of_each_translation_form_is_found() -> None:
    ip = ipaddress.ip_address
    assert embedded_ipv4(ip("2002:a9fe:a9fe::")) == [ip("169.254.169.254")]
    assert embedded_ipv4(ip("64:ff9b::a9fe:a9fe")) == [ip("169.254.169.254")]
    assert embedded_ipv4(ip("::ffff:10.0.0.1")) == [ip("10.0.0.1")]
    assert embedded_ipv4(ip("2001:0:4136:e378:8000:63bf:f5ff:fffe")) == [ip("65.54.227.120"), ip("10.0.0.1")]
    assert embedded_ipv4(ip("2606:2800:220:1::1")) == []


@override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8", "fd00:1::/32"])
def test_the_allow_list_opens_its_ranges_and_their_translated_forms_only() -> None:
    for url in (
        "http://127.0.0.1:9/hook",
        "http://[2002:7f00:1::]/hook",  # 6to4 of an allow-listed address
        "http://[64:ff9b::7f00:1]/hook",  # NAT64 of one
        "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped form of one
        "http://[fd00:1::5]/hook",
    ):
        validate_target_url(url)
    for url in ("http://10.0.0.1/hook", "http://[2002:a9fe:a9fe::]/hook", "http://[fd00:2::5]/hook"):
        with pytest.raises(UnsafeTarget):
            validate_target_url(url)
