"""`urlpatterns` is mounted at /api/; `gateway_urlpatterns` at /gateway/ (see config/urls.py)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
gateway_urlpatterns: list[URLPattern] = []
