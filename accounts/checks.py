"""System checks that report misconfiguration in plain words (`manage.py check`)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Warning, register

from accounts.netaddr import parse_networks


@register()
def check_settings(app_configs, **kwargs) -> list:
    problems = []
    try:
        parse_networks(settings.PONTE_TRUSTED_PROXIES)
    except ValueError as exc:
        problems.append(
            Error(
                f"PONTE_TRUSTED_PROXIES has a bad entry: {exc}.",
                hint="Use comma-separated IPs or CIDRs.",
                id="ponte.E001",
            )
        )
    try:
        parse_networks(settings.PONTE_WEBHOOK_ALLOW_NETWORKS)
    except ValueError as exc:
        problems.append(
            Error(
                f"PONTE_WEBHOOK_ALLOW_NETWORKS has a bad entry: {exc}.",
                hint="Use comma-separated CIDRs, e.g. 10.0.0.0/8,192.168.1.0/24.",
                id="ponte.E003",
            )
        )
    if not settings.DEBUG and "localhost" in settings.ALLOWED_HOSTS and len(settings.ALLOWED_HOSTS) <= 4:
        problems.append(
            Warning(
                "DEBUG is off but ALLOWED_HOSTS only names local addresses; remote callers will get 400.",
                hint="Set ALLOWED_HOSTS to your public host names, comma-separated.",
                id="ponte.W001",
            )
        )
    if not settings.DEBUG and not settings.REDIS_URL:
        problems.append(
            Warning(
                "DEBUG is off and REDIS_URL is not set: rate limits and caches are per process.",
                hint="Set REDIS_URL when running more than one web process.",
                id="ponte.W002",
            )
        )
    if settings.PONTE_HTTPS and not settings.PONTE_TRUSTED_PROXIES:
        # Behind a proxy every connection comes from the proxy: each caller would look like it, and a key
        # allowed only the proxy's address would be usable by anyone.
        problems.append(
            Warning(
                "PONTE_HTTPS is on (a TLS proxy in front) but PONTE_TRUSTED_PROXIES is empty: every caller "
                "looks like the proxy to key IP allow-lists and per-address rate limits.",
                hint="Set PONTE_TRUSTED_PROXIES to the proxy's address, e.g. 127.0.0.1 (docs/deploy.md).",
                id="ponte.W003",
            )
        )
    return problems
