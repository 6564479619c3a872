"""PONTE_VAR_DIR: where every kept file lives, and the suite's own one (tests/isolation.py)."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.db import connection

from core.env import env_path


def test_the_suite_keeps_every_file_in_a_var_dir_of_its_own():
    var_dir = Path(settings.VAR_DIR)
    assert var_dir != Path(settings.BASE_DIR) / "var" and var_dir.is_dir()
    assert Path(os.environ["PONTE_VAR_DIR"]) == var_dir
    assert Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).parent == var_dir
    assert Path(settings.STORAGES["messaging_media"]["OPTIONS"]["location"]).parent == var_dir
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        assert Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]).parent.parent == var_dir
    if connection.vendor == "sqlite":
        assert Path(connection.settings_dict["NAME"]).parent == var_dir


def test_a_relative_var_dir_is_taken_from_the_checkout_not_the_working_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PONTE_VAR_DIR", "elsewhere/var")
    assert env_path("PONTE_VAR_DIR", tmp_path) == Path(settings.BASE_DIR) / "elsewhere" / "var"


def test_an_empty_var_dir_setting_means_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv("PONTE_VAR_DIR", " ")
    assert env_path("PONTE_VAR_DIR", tmp_path) == tmp_path
