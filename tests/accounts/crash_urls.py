"""The project's URLs plus a page that crashes and one answering its own JSON 404, for the error page
tests (ROOT_URLCONF override)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path

from config import urls


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a page that crashes")


def json_missing(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"error": "gone"}, status=404)


urlpatterns = [
    path("account/crash/", crash),
    path("account/json-missing/", json_missing),
    path("api/crash", crash),
    *urls.urlpatterns,
]
handler404 = urls.handler404
handler500 = urls.handler500
