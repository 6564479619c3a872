"""A local HTTP server standing in for BCB, Tesouro Transparente and broker feeds: it speaks their
real formats (fixtures in tests/bonds/fixtures/) from 127.0.0.1, so the providers run for real."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from accounts.models import ApiKey
from tests.bonds.mcp_support import bonds, live_server_url, mcp_url  # noqa: F401  (the MCP tests' fixtures)
from tests.localhttp import base_url, start_server, stop_server

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@dataclass
class Route:
    body: bytes
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class FakeSource:
    """Routes by path (the query string is recorded, not matched)."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        handler = self._handler()
        self.server = start_server(handler)

    @property
    def base(self) -> str:
        return base_url(self.server)

    def route(self, path: str, body: bytes | str, **kwargs) -> str:
        self.routes[path] = Route(body.encode() if isinstance(body, str) else body, **kwargs)
        return self.base + path

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        source = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                source.requests.append(self.path)
                route = source.routes.get(self.path.split("?", 1)[0])
                if route is None:
                    route = Route(b"<html><body>404 Not Found</body></html>", 404, "text/html")
                if route.delay:
                    time.sleep(route.delay)
                try:
                    self.send_response(route.status)
                    self.send_header("Content-Type", route.content_type)
                    self.send_header("Content-Length", str(len(route.body)))
                    for name, value in route.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(route.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, *args) -> None:
                pass

        return Handler

    def close(self) -> None:
        stop_server(self.server)


@pytest.fixture(autouse=True)
def _forget_bond_replies():
    """The per-process memos of bonds.replies and bonds.access outlive tests/conftest.py's cache.clear()."""
    from bonds import access
    from bonds.replies import data_version_bump

    data_version_bump()
    access.subscription_memos_clear()
    yield
    data_version_bump()
    access.subscription_memos_clear()


@pytest.fixture(scope="module")
def demo_for_the_module(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The bonds demo, loaded once for a module whose tests only read it (tests/module_data.py)."""
    from django.test import override_settings

    from bonds import demo
    from tests.module_data import loaded_for_the_module

    local_copom = override_settings(BONDS_COPOM_CALENDAR_URL="http://127.0.0.1:9/copom.ics")
    with local_copom, loaded_for_the_module(django_db_blocker, lambda: demo.load(stdout=io.StringIO())):
        yield


@pytest.fixture
def fake_source() -> Iterator[FakeSource]:
    source = FakeSource()
    yield source
    source.close()


SGS_SERIES = {
    432: '[{"data":"17/11/2026","valor":"14.25"},{"data":"18/11/2026","valor":"14.25"}]',
    4389: '[{"data":"17/11/2026","valor":"14.15"},{"data":"18/11/2026","valor":"14.15"}]',
    13522: '[{"data":"01/09/2026","valor":"4.81"},{"data":"01/10/2026","valor":"4.68"}]',
}


@pytest.fixture(autouse=True)
def _copom_calendar_stays_local(settings):
    """The Copom calendar URL points at a closed local port unless a test serves it (live_sources)."""
    settings.BONDS_COPOM_CALENDAR_URL = "http://127.0.0.1:9/copom.ics"


@pytest.fixture
def live_sources(fake_source: FakeSource, settings) -> FakeSource:
    """Every provider pointed at the fake source, each answering its real-format fixture."""
    settings.BONDS_FOCUS_BASE_URL = fake_source.base + "/olinda/odata"
    settings.BONDS_SGS_BASE_URL = fake_source.base + "/sgs"
    settings.BONDS_TESOURO_CSV_URL = fake_source.base + "/tesouro/PrecoTaxaTesouroDireto.csv"
    settings.BONDS_HTTP_TIMEOUT = 5
    fake_source.route("/olinda/odata/ExpectativasMercadoAnuais", fixture_bytes("focus_anuais.json"))
    fake_source.route("/olinda/odata/ExpectativasMercadoSelic", fixture_bytes("focus_selic.json"))
    for code, body in SGS_SERIES.items():
        fake_source.route(f"/sgs/bcdata.sgs.{code}/dados/ultimos/5", body)
    # The TR (226) by a window of dates, in SGS's own format for it (`data` and `dataFim` of each month).
    fake_source.route("/sgs/bcdata.sgs.226/dados", fixture_bytes("sgs_226.json"))
    fake_source.route(
        "/tesouro/PrecoTaxaTesouroDireto.csv", fixture_bytes("tesouro.csv"), content_type="text/csv"
    )
    settings.BONDS_COPOM_CALENDAR_URL = (
        fake_source.route(
            "/api/exportarics/sitebcb/agendaics",
            fixture_bytes("copom_agenda.ics"),
            content_type="text/calendar",
        )
        + "?lista=Reuni%C3%B5es%20do%20Copom"
    )
    return fake_source


@pytest.fixture
def key(make_key, settings) -> str:
    """A viewer key with no wait between its bond calls, so a test may call as often as it needs."""
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    return make_key(ApiKey.Role.VIEWER)
