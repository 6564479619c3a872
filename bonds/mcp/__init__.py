"""The bond list as a remote MCP tool server (Streamable HTTP) at /bonds/mcp.

* `schemas`: the typed (structured) results of the tools;
* `reads`: the database work behind each tool, reusing the bond selectors and services;
* `guide`: the fields, formulas and statuses the `explain_bonds` tool returns;
* `server`: the `MCPServer` and its tools;
* `asgi`: the SDK's Streamable HTTP app and the router that `config/asgi.py` serves next to Django.
"""
