"""The project's URLs plus pages that crash, for the 500 page tests (ROOT_URLCONF override)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config import urls


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a page that crashes")


urlpatterns = [path("account/crash/", crash), path("api/crash", crash), *urls.urlpatterns]
handler404 = urls.handler404
handler500 = urls.handler500
