"""MCP tools answer bad arguments with one readable sentence per field, not pydantic's report (issue 45)."""

from __future__ import annotations

from tests.bonds.mcp_support import bonds, call, live_server_url, mcp_url  # noqa: F401 (fixtures)


def test_bad_arguments_get_one_sentence_per_field(mcp_url, bonds) -> None:  # noqa: F811
    result = call(mcp_url, "project_bond", {"amount": -5})
    text = result.content[0].text
    assert result.is_error
    assert text.startswith("project_bond was called with bad arguments: ")
    assert "bond_id is required." in text and "amount must be greater than 0." in text
    assert "validation error" not in text and "pydantic" not in text and "Arguments" not in text


def test_a_value_outside_a_list_names_the_accepted_ones(mcp_url, bonds) -> None:  # noqa: F811
    text = call(mcp_url, "list_bonds", {"product": ["stocks"]}).content[0].text
    assert text.startswith("list_bonds was called with bad arguments: product.0 must be 'cdb'")
