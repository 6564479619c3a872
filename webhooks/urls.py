"""`gateway_urlpatterns` is mounted at /gateway/; `instance_urlpatterns` at /instances/."""

from django.urls import URLPattern

gateway_urlpatterns: list[URLPattern] = []
instance_urlpatterns: list[URLPattern] = []
