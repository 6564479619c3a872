"""`manage.py check` warns when Ponte is told it runs behind a TLS proxy but not which proxy to believe."""

from __future__ import annotations

from django.core.checks import run_checks


def _ids() -> set[str]:
    return {problem.id for problem in run_checks()}


def test_https_behind_a_proxy_without_trusted_proxies_is_warned_about(settings):
    settings.PONTE_HTTPS = True
    settings.PONTE_TRUSTED_PROXIES = []
    assert "ponte.W003" in _ids()


def test_https_with_its_proxy_trusted_is_not_warned_about(settings):
    settings.PONTE_HTTPS = True
    settings.PONTE_TRUSTED_PROXIES = ["127.0.0.1"]
    assert "ponte.W003" not in _ids()
