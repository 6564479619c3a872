"""Mounted at /bonds/ (see config/urls.py)."""

from django.urls import URLPattern

app_name = "bonds"
urlpatterns: list[URLPattern] = []
