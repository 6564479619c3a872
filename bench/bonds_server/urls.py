"""Ponte's URLs plus bare views that return a prebuilt body (the bench's yardstick).

The bench's patterns come right after the bonds mount, which is first in Ponte's URL map as in
production: in front of it they made every bond call try three patterns a production server does not
have, and the bare views now pay the one failed prefix of the bonds mount instead."""

import os
from pathlib import Path

from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.urls import path

from accounts.authentication import authenticate_presented, presented_bearer_or_query_key
from bonds.replies import data_version_bump
from config.urls import urlpatterns as ponte_urlpatterns

BODIES_DIR = Path(os.environ["BENCH_BODIES_DIR"])
BODIES = {
    item.stem: (item.read_bytes(), "text/csv; charset=utf-8" if item.suffix == ".csv" else "application/json")
    for item in BODIES_DIR.iterdir()
}


@transaction.non_atomic_requests
def bare(request: HttpRequest, name: str) -> HttpResponse:
    body, content_type = BODIES[name]
    return HttpResponse(body, content_type=content_type)


bench_urlpatterns = [path("bench/bare/<str:name>", bare)]


@transaction.non_atomic_requests
def bare_after_key_lookup(request: HttpRequest, name: str) -> HttpResponse:
    """The same prebuilt body after the one thing a keyed call cannot skip: the key lookup."""
    authenticate_presented(request, presented_bearer_or_query_key(request) or "")
    body, content_type = BODIES[name]
    return HttpResponse(body, content_type=content_type)


bench_urlpatterns.append(path("bench/bare-after-key-lookup/<str:name>", bare_after_key_lookup))


@transaction.non_atomic_requests
def forget_replies(request: HttpRequest) -> HttpResponse:
    """Empty the reply cache (shared and per process), so the next list call renders: the bench's
    uncached case. Clears the whole cache, which on the bench's own database only holds its keys."""
    cache.clear()
    data_version_bump()
    return HttpResponse(b"forgotten", content_type="text/plain")


bench_urlpatterns.append(path("bench/forget-replies", forget_replies))

bonds_mount, *ponte_rest = ponte_urlpatterns
assert str(bonds_mount.pattern) == "bonds/", "Ponte's URL map no longer starts with the bonds mount"
urlpatterns = [bonds_mount, *bench_urlpatterns, *ponte_rest]
