"""The staff admin's site: Django's own, with its sign-in limited as the account area's is
(accounts/signin.py): per (username, client address) and per client address, 429 past either."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.http import HttpRequest, HttpResponse

from accounts.signin import SigninLimits, with_refusal_status


class AdminSigninForm(SigninLimits, AdminAuthenticationForm):
    """The admin's sign-in form (staff only), counted before the password is tried."""


class PonteAdminSite(admin.AdminSite):
    login_form = AdminSigninForm

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        return with_refusal_status(request, super().login(request, extra_context))
