"""URL map. Each mount ends in a catch-all, so an unknown route answers in
that interface's own error shape rather than an HTML page, whatever DEBUG says."""

import sys

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts import urls as accounts_urls
from core import health, metrics
from core.errors import ApplicationError, BadRequest, NotFound, database_outage, json_error_response
from core.locale import is_localized
from integrations import urls as integrations_urls
from messaging import urls as messaging_urls
from portal import home as account_home
from portal import site
from portal.error_pages import error_page
from webhooks import urls as webhooks_urls


@csrf_exempt
def unknown_route(request: HttpRequest, rest: str = "") -> HttpResponse:
    return json_error_response(request, NotFound(f"No route {request.method} {request.path}."))


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # Django's own refusals outside DRF views (SuspiciousOperation: bad Host, too many fields...).
    return json_error_response(request, BadRequest())


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_localized(request.path):
        # The pages are read by people: their own page, in their language (portal/error_pages.py).
        return error_page(request, 404)
    return json_error_response(request, NotFound(f"No route {request.method} {request.path}."))


def handler500(request: HttpRequest) -> HttpResponse:
    # Called while Django handles the exception (outside DRF views: plain views, middleware, the
    # request's commit), so the cause is at hand: a database that failed is a 503, not a bug.
    outage = database_outage(request, sys.exc_info()[1])
    if is_localized(request.path):
        # The pages are read by people: the error page, as a 503 with Retry-After for an outage.
        page = error_page(request, 500, safe=True)
        if outage is not None:
            page.status_code = outage.status_code
            page["Retry-After"] = str(outage.retry_after)
        return page
    return json_error_response(request, outage or ApplicationError())


urlpatterns = [
    # First: GET /bonds/api/ is the busiest public route, and each pattern tried before a match costs
    # every call a noticeable share of a cached bond preview (docs/decisions/0007). Prefixes are
    # disjoint, so the order changes no answer.
    path("bonds/", include("bonds.urls")),
    re_path(r"^bonds/(?P<rest>.*)$", unknown_route),
    path("", account_home.landing, name="landing"),
    path("account/", include("portal.urls")),
    # The header's language switch posts to Django's set_language view (core/locale.py).
    path("i18n/", include("django.conf.urls.i18n")),
    path("demo/", include("webhooks.demo.receiver")),
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("docs/guides/<slug:name>.md", site.guide, name="guide"),
    path("favicon.ico", site.favicon, name="favicon"),
    path(
        "api/",
        include(accounts_urls.urlpatterns + messaging_urls.urlpatterns + integrations_urls.api_urlpatterns),
    ),
    re_path(r"^api/(?P<rest>.*)$", unknown_route),
    path(
        "gateway/",
        include(
            accounts_urls.gateway_urlpatterns
            + messaging_urls.gateway_urlpatterns
            + webhooks_urls.gateway_urlpatterns
        ),
    ),
    re_path(r"^gateway/(?P<rest>.*)$", unknown_route),
    path(
        "instances/",
        include(webhooks_urls.instance_urlpatterns + integrations_urls.instance_urlpatterns),
    ),
    path("integrations/", include(integrations_urls.urlpatterns)),
    re_path(r"^integrations/(?P<rest>.*)$", unknown_route),
    path("channels/", include("messaging.channels.urls")),
    re_path(r"^instances/(?P<rest>.*)$", unknown_route),
]
