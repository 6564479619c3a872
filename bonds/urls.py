"""Mounted at /bonds/ (see config/urls.py)."""

from django.db import transaction
from django.urls import URLPattern, path

from bonds.api import BondListApi

app_name = "bonds"
# A read with no writes worth a transaction: skipping ATOMIC_REQUESTS spares a BEGIN (and, on
# SQLite, the write lock) per call, so a cached reply really costs no database work.
urlpatterns: list[URLPattern] = [
    path("api/", transaction.non_atomic_requests(BondListApi.as_view()), name="list"),
]
