"""The MCP caller is read from plain values of the call's HTTP request, as the REST API reads them."""

from __future__ import annotations

from bonds.mcp.reads import caller_of


def test_an_mcp_caller_key_comes_from_the_bearer_header_before_the_query():
    caller = caller_of(
        authorization="Bearer pk_header",
        query_string="key=pk_query",
        remote_addr="203.0.113.9",
        forwarded_for=None,
    )
    assert (caller.plaintext_key, caller.client_ip) == ("pk_header", "203.0.113.9")


def test_an_mcp_caller_without_a_bearer_uses_the_last_key_query_value_and_none_is_no_key():
    assert (
        caller_of(
            authorization="Basic abc", query_string="key=a&key=+b+", remote_addr="", forwarded_for=None
        ).plaintext_key
        == "b"
    )
    assert (
        caller_of(authorization=None, query_string="key=", remote_addr="", forwarded_for=None).plaintext_key
        is None
    )


def test_an_mcp_caller_forwarded_address_counts_only_behind_a_trusted_proxy(settings):
    settings.PONTE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    behind = caller_of(
        authorization=None, query_string="", remote_addr="10.0.0.2", forwarded_for="198.51.100.7"
    )
    direct = caller_of(
        authorization=None, query_string="", remote_addr="192.0.2.1", forwarded_for="198.51.100.7"
    )
    assert (behind.client_ip, direct.client_ip) == ("198.51.100.7", "192.0.2.1")


def test_an_mcp_caller_key_is_read_whatever_the_case_of_the_bearer_scheme():
    for value in ["bearer pk_header", "BEARER pk_header", "Bearer\tpk_header"]:
        caller = caller_of(authorization=value, query_string="", remote_addr="", forwarded_for=None)
        assert caller.plaintext_key == "pk_header"
