"""What a browser asks of the site besides its pages: the favicon, and the guides (docs/*.md) the pages
link to, so "how to verify signatures" is a link rather than a file name to look for (issue 45)."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

# Ponte's mark: a bridge's arch over the brand's green.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="7" fill="#0b6e4f"/>'
    '<path d="M4 22h24M7 22c2-8 16-8 18 0M10 22v-4M16 22v-6M22 22v-4" stroke="#fff" stroke-width="2.5" '
    'fill="none" stroke-linecap="round"/></svg>'
)


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FAVICON, content_type="image/svg+xml")


@require_safe
def guide(request: HttpRequest, name: str) -> FileResponse:
    """docs/<name>.md as text: only the guides at the top of docs/ (the slug keeps the path inside it)."""
    path = settings.BASE_DIR / "docs" / f"{name}.md"
    if not path.is_file():
        raise Http404(name)
    return FileResponse(path.open("rb"), content_type="text/plain; charset=utf-8")
