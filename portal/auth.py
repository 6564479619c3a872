"""Sign up, sign in and password reset (each rate limited), sign out and the optional email verification.

Sign-in, sign-out and password reset are Django's own views with the area's templates; sign-up
calls `account_signup`.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.debug import sensitive_post_parameters

from accounts.netaddr import client_address
from accounts.ratelimit import Usage, usage_hit
from accounts.services import account_signup
from accounts.signin import with_refusal_status
from core.errors import ApplicationError
from portal.forms import SigninForm, SignupForm
from portal.refusals import translated

RESET_REFUSED = gettext_lazy("Too many password reset requests. Wait a while and try again.")


@sensitive_post_parameters("password", "confirmation")
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account:home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if _signups_exceeded(request):
            form.add_error(None, gettext("Too many sign-ups from this address. Try again later."))
            return render(request, "portal/signup.html", {"form": form}, status=429)
        try:
            user, _ = account_signup(email=form.cleaned_data["email"], password=form.cleaned_data["password"])
        except ApplicationError as error:
            form.add_error("email", translated(error))
        else:
            if not user.is_active:
                _send_verification(request, user)
                return render(request, "portal/verify_sent.html", {"email": user.email})
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request, gettext("Welcome to Ponte. Your account is on the Free plan; issue a key below.")
            )
            return redirect("account:home")
    return render(request, "portal/signup.html", {"form": form}, status=400 if form.errors else 200)


def _signups_exceeded(request: HttpRequest) -> bool:
    """Accounts created per client address are limited (PONTE_SIGNUP_RATE), against scripted sign-ups."""
    usage = usage_hit(
        request, group="signup:ip", subject=client_address(request), rate=settings.PONTE_SIGNUP_RATE
    )
    return usage is not None and usage.exceeded


def _send_verification(request: HttpRequest, user) -> None:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    link = request.build_absolute_uri(reverse("account:verify", args=[uid, token]))
    # Sent while the request's language is active, so the mail is in the language of the sign-up page.
    send_mail(
        gettext("Confirm your Ponte account"),
        gettext("Follow this link to confirm your email and sign in:\n\n%(link)s\n") % {"link": link},
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
    )


def verify(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    users = get_user_model()
    try:
        user = users.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (ValueError, users.DoesNotExist):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        return render(request, "portal/verify_failed.html", status=400)
    user.is_active = True
    user.save(update_fields=["is_active"])
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, gettext("Email confirmed. Welcome to Ponte."))
    return redirect("account:home")


class SigninView(auth_views.LoginView):
    """Django's sign-in, refused (429) past the sign-in limits the admin shares (accounts/signin.py:
    PONTE_SIGNIN_RATE per (username, client address), PONTE_SIGNIN_CLIENT_RATE per client address)."""

    template_name = "portal/login.html"
    form_class = SigninForm
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return with_refusal_status(request, super().post(request, *args, **kwargs))


class ResetView(auth_views.PasswordResetView):
    """Django's password reset, refused (429) past PONTE_PASSWORD_RESET_EMAIL_RATE mails per email
    address or PONTE_PASSWORD_RESET_CLIENT_RATE per client address."""

    template_name = "portal/password_reset.html"
    email_template_name = "portal/password_reset_email.txt"
    subject_template_name = "portal/password_reset_subject.txt"
    success_url = "/account/password-reset/sent/"

    def form_valid(self, form) -> HttpResponse:
        refused = _resets_refused(self.request, form.cleaned_data["email"])
        if refused is None:
            return super().form_valid(form)
        form.add_error(None, RESET_REFUSED)
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(refused.retry_after)
        return response


def _resets_refused(request: HttpRequest, email: str) -> Usage | None:
    """The counter that refuses this reset, or None after counting it against both.

    The email address is counted whether or not an account uses it, so a refusal says nothing about
    that. Only resets let through count, against both counters: refused ones mail nobody, and a
    flood aimed at one mailbox must not use up the client's allowance for other addresses."""
    counters = (
        ("password-reset:email", email.strip().casefold(), settings.PONTE_PASSWORD_RESET_EMAIL_RATE),
        ("password-reset:ip", client_address(request), settings.PONTE_PASSWORD_RESET_CLIENT_RATE),
    )
    for group, subject, rate in counters:
        usage = usage_hit(request, group=group, subject=subject, rate=rate, increment=False)
        if usage is not None and (usage.exceeded or usage.remaining <= 0):
            return usage
    for group, subject, rate in counters:
        usage_hit(request, group=group, subject=subject, rate=rate)
    return None


class ResetSentView(auth_views.PasswordResetDoneView):
    template_name = "portal/password_reset_sent.html"


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "portal/password_reset_confirm.html"
    success_url = "/account/password-reset/done/"


class ResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "portal/password_reset_done.html"
