from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from accounts.demo import DEMO_ADMIN_PASSWORD, DEMO_ADMIN_USER, DEMO_CUSTOMER_EMAIL, DEMO_CUSTOMER_PASSWORD
from accounts.demo_keys import demo_keys
from accounts.models import Account
from core.startup import degraded_parts, own_web_answers


def offset_time(moment) -> str:
    """A local time with its UTC offset ("14:05:09 UTC-03:00"): the banner is read beside logs on UTC."""
    local = timezone.localtime(moment)
    offset = local.strftime("%z")
    return f"{local:%H:%M:%S} UTC{offset[:3]}:{offset[3:]}"


class Command(BaseCommand):
    help = "Print the demo keys and URLs (make run's last words; make keys: --fresh issues new keys)."
    # `make run`'s `migrate` ran the checks already: a second print of their warnings is noise.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("--fresh", action="store_true", help="Revoke the demo keys and issue new ones.")
        parser.add_argument(
            "--wait",
            type=float,
            default=0,
            metavar="SECONDS",
            help="First wait up to this long for /healthz.",
        )

    def handle(self, *args, fresh: bool, wait: float, **options) -> None:
        base = settings.PONTE_BASE_URL
        degraded: dict[str, str] = {}
        if wait:
            self.wait_for_own_web(base, wait)
            degraded = degraded_parts(base=base)
        if not Account.objects.filter(name="demo").exists():
            raise CommandError("No demo account: run `python manage.py load_demo` (or `make demo`) first.")
        keys = demo_keys(fresh=fresh)
        self.stdout.write(self.banner(base, keys, degraded))

    @staticmethod
    def wait_for_own_web(base: str, wait: float) -> None:
        """Until this run's web process answers /healthz with its token (PONTE_RUN_TOKEN)."""
        token = settings.PONTE_RUN_TOKEN
        deadline = time.monotonic() + wait
        while not own_web_answers(base=base, token=token):
            if time.monotonic() > deadline:
                whose = " with this run's token (PONTE_RUN_TOKEN)" if token else ""
                raise CommandError(f"Ponte did not answer at {base}/healthz{whose} within {wait:.0f} s.")
            time.sleep(0.5)

    @staticmethod
    def exports(base: str, keys: dict[str, str], sessions: dict[str, str]) -> str:
        """The variables the docs' examples read; the bond examples of bonds.md (PONTE_KEY) and mcp.md
        (PONTE_API_KEY) get different keys, so each keeps its own 5-second interval."""
        variables = {
            "PONTE": base,
            "ADMIN_KEY": keys["admin"],
            "KEY": keys["admin"],
            "PONTE_KEY": keys["viewer"],
            "PONTE_API_KEY": keys["operator"],
            **sessions,
        }
        return " ".join(f"{name}={value}" for name, value in variables.items())

    def banner(self, base: str, keys: dict[str, str], degraded: dict[str, str] | None = None) -> str:
        from messaging.demo import demo_session_ids, waiting_qr_refresh

        rule = "=" * 78
        if degraded:
            head = [
                f"  Ponte is up at {base}/ but DEGRADED ({', '.join(degraded)} down; {base}/readyz):",
                *[f"    {name}: {problem}" for name, problem in degraded.items()],
                "    The API answers on its fallbacks; deliveries and tasks wait for the broker.",
            ]
        else:
            head = [f"  Ponte is up at {base}/"]
        lines = [
            rule,
            *head,
            f"  account area   {base}/account/    {DEMO_CUSTOMER_EMAIL} / {DEMO_CUSTOMER_PASSWORD}",
            f"  staff admin    {base}/admin/      {DEMO_ADMIN_USER} / {DEMO_ADMIN_PASSWORD}",
            f"  API docs       {base}/docs/",
            f"  MCP endpoint   {base}/bonds/mcp",
            f"  demo webhooks  {base}/demo/       (what the demo webhook received)",
            "  demo API keys (account 'demo', plan Empresarial, bonds subscription active):",
            *[f"    {role:<8} {plaintext}" for role, plaintext in keys.items()],
            "  try:",
            f"    curl -H 'X-API-Key: {keys['admin']}' {base}/api/sessions",
            f"    curl -H 'Authorization: Bearer {keys['viewer']}' '{base}/bonds/api/?product=cdb'",
            "  the examples in README.md, docs/ and clients/python/README.md read:",
            f"    export {self.exports(base, keys, demo_session_ids())}",
        ]
        waiting = waiting_qr_refresh()
        if waiting is not None:
            session, qr = waiting
            until = offset_time(qr.expires_at)
            lines.append(
                f"  session {session.name} waits for a scan: QR current until {until}, live at "
                f"{base}/account/sessions/{session.pk}/"
            )
        lines += ["  make keys prints fresh demo keys. Ctrl-C stops everything.", rule, ""]
        return "\n".join(lines)
