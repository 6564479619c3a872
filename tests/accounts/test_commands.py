"""Scriptable administration: create_account, issue_key and load_demo."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Account, ApiKey, Subscription
from accounts.services import api_key_authenticate

pytestmark = pytest.mark.django_db


def run(*args: str) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip().splitlines()


def test_create_account_puts_the_account_on_its_plan_with_a_subscription(default_plans) -> None:
    run("create_account", "acme", "--plan", "Intermediário", "--bonds-subscription", "past_due")
    account = Account.objects.get(name="acme")
    assert account.plan.name == "Intermediário"
    assert account.subscriptions.get().status == Subscription.Status.PAST_DUE


def test_create_account_refuses_an_unknown_plan_in_one_line(default_plans) -> None:
    with pytest.raises(CommandError, match="Unknown plan 'Gold'; plans are: Free, Inicial"):
        run("create_account", "acme", "--plan", "Gold")


def test_create_account_refuses_a_duplicate_name(account) -> None:
    with pytest.raises(CommandError, match="already exists"):
        run("create_account", "acme", "--plan", "Free")


def test_issue_key_prints_the_full_key_alone_on_the_last_line(account) -> None:
    lines = run(
        "issue_key",
        "--account",
        "acme",
        "--role",
        "operator",
        "--expires",
        "2099-01-01",
        "--allowed-ip",
        "10.0.0.0/8",
        "--allowed-session",
        "0b6f3c7e-9a1e-4d1a-8d3c-2f1b5e7a9c01",
    )
    plaintext = lines[-1]
    key = api_key_authenticate(plaintext=plaintext, client_ip="10.1.2.3")
    assert key.role == "operator" and key.expires_at.year == 2099
    assert key.allowed_ips == ["10.0.0.0/8"]
    assert key.allowed_sessions == ["0b6f3c7e-9a1e-4d1a-8d3c-2f1b5e7a9c01"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--account", "nobody", "--role", "admin"], "Unknown account 'nobody'"),
        (["--account", "acme", "--role", "root"], "Bad role 'root'"),
        (["--account", "acme", "--role", "admin", "--expires", "soon"], "not an ISO 8601"),
        (["--account", "acme", "--role", "admin", "--allowed-ip", "x"], "allowed_ips"),
        (["--account", "acme", "--role", "admin", "--allowed-session", "x"], "allowed_sessions"),
    ],
)
def test_issue_key_errors_are_one_clear_line(account, args, message) -> None:
    with pytest.raises(CommandError, match=message):
        run("issue_key", *args)
    assert ApiKey.objects.count() == 0


def test_command_errors_exit_non_zero_from_the_shell(subprocess_env) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "manage.py", "issue_key", "--account", "nobody-at-all", "--role", "admin"],
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env,
    )
    assert result.returncode != 0
    assert "Unknown account 'nobody-at-all'" in result.stderr


# Slow (tests/tiers.py): loads the whole demo, twice.
@pytest.mark.slow
def test_load_demo_twice_creates_everything_once_and_keeps_the_same_keys(
    default_plans, settings, tmp_path
) -> None:
    settings.VAR_DIR = tmp_path
    first = "\n".join(run("load_demo"))
    counts = (Account.objects.count(), ApiKey.objects.count())
    second = "\n".join(run("load_demo"))
    assert (Account.objects.count(), ApiKey.objects.count()) == counts
    # The keys are printed by demo_keys once the server answers, not scrolled away here.
    assert "ponte_" not in first and "ponte_" not in second
    assert {a.plan.name for a in Account.objects.all()} >= {"Free", "Inicial", "Intermediário", "Empresarial"}
    assert set(ApiKey.objects.values_list("role", flat=True)) == {"admin", "operator", "viewer"}
    assert Account.objects.get(name="demo").user.username == "demo@example.com"
