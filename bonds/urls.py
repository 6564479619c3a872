"""Mounted at /bonds/ (see config/urls.py)."""

from django.db import transaction
from django.urls import URLPattern, path
from django.views.generic import RedirectView

from bonds.api import BondListApi
from bonds.mcp.page import mcp_connect_page
from bonds.pages import bonds_index
from bonds.projection_api import BondProjectionApi

app_name = "bonds"
urlpatterns: list[URLPattern] = [
    # A read with no writes worth a transaction: skipping ATOMIC_REQUESTS spares a BEGIN (and, on
    # SQLite, the write lock) per call, so a cached reply really costs no database work.
    path("api/", transaction.non_atomic_requests(BondListApi.as_view()), name="list"),
    path(
        "api/<int:bond_id>/projection",
        transaction.non_atomic_requests(BondProjectionApi.as_view()),
        name="projection",
    ),
    # `/bonds/api` (no slash) is a common typo in spreadsheets; the bonds catch-all would answer
    # not_found, so redirect it, query string included.
    path("api", RedirectView.as_view(pattern_name="bonds:list", query_string=True, permanent=False)),
    # A browser opening the MCP URL (config/asgi.py routes only that here; MCP clients reach the SDK).
    path("mcp", mcp_connect_page, name="mcp-page"),
    # `/bonds/` itself: a page for a browser, the JSON not_found for a program (bonds/pages.py); after
    # the list, which is tried first on every call.
    path("", bonds_index, name="index"),
]
