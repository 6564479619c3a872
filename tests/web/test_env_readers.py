"""The env_* readers every setting goes through: unset means the default, bad input names the variable."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from core.env import env_float, env_str


def test_a_string_setting_keeps_an_empty_value_and_defaults_only_when_unset(monkeypatch):
    monkeypatch.delenv("PONTE_TEST_TEXT", raising=False)
    assert env_str("PONTE_TEST_TEXT", "fallback") == "fallback"
    monkeypatch.setenv("PONTE_TEST_TEXT", "")
    assert env_str("PONTE_TEST_TEXT", "fallback") == ""
    monkeypatch.setenv("PONTE_TEST_TEXT", " as given ")
    assert env_str("PONTE_TEST_TEXT", "fallback") == " as given "


def test_a_number_setting_that_is_blank_takes_its_default(monkeypatch):
    monkeypatch.setenv("PONTE_TEST_SECONDS", " ")
    assert env_float("PONTE_TEST_SECONDS", 2.0) == 2.0
    monkeypatch.setenv("PONTE_TEST_SECONDS", "0.01")
    assert env_float("PONTE_TEST_SECONDS", 2.0) == 0.01


def test_a_number_setting_that_is_not_a_number_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("PONTE_TEST_SECONDS", "soon")
    with pytest.raises(ImproperlyConfigured, match=r"PONTE_TEST_SECONDS must be a number; got 'soon'\."):
        env_float("PONTE_TEST_SECONDS", 2.0)


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_the_settings_refuse_a_bad_number_at_start_naming_the_variable():
    env = {"PATH": "/usr/bin:/bin", "ENGINE_LEASE_SECONDS": "fifteen", "PONTE_VAR_DIR": str(settings.VAR_DIR)}
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; django.setup()"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured: ENGINE_LEASE_SECONDS must be a number; got 'fifteen'." in done.stderr
