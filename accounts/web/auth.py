"""Sign up, sign in (rate limited), sign out, password reset and the optional email verification.

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
from django.views.decorators.debug import sensitive_post_parameters

from accounts.netaddr import client_address
from accounts.ratelimit import usage_hit
from accounts.services import account_signup
from accounts.web.forms import SignupForm
from config.errors import ApplicationError

SIGNIN_REFUSED = "Too many sign-in attempts. Wait a minute and try again."


@sensitive_post_parameters("password", "confirmation")
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account:home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if _signups_exceeded(request):
            form.add_error(None, "Too many sign-ups from this address. Try again later.")
            return render(request, "account/signup.html", {"form": form}, status=429)
        try:
            user, _ = account_signup(email=form.cleaned_data["email"], password=form.cleaned_data["password"])
        except ApplicationError as error:
            form.add_error("email", error.message)
        else:
            if not user.is_active:
                _send_verification(request, user)
                return render(request, "account/verify_sent.html", {"email": user.email})
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request, "Welcome to Ponte. Your account is on the Free plan; issue a key below."
            )
            return redirect("account:home")
    return render(request, "account/signup.html", {"form": form}, status=400 if form.errors else 200)


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
    send_mail(
        "Confirm your Ponte account",
        f"Follow this link to confirm your email and sign in:\n\n{link}\n",
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
        return render(request, "account/verify_failed.html", status=400)
    user.is_active = True
    user.save(update_fields=["is_active"])
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, "Email confirmed. Welcome to Ponte.")
    return redirect("account:home")


class SigninView(auth_views.LoginView):
    """Django's sign-in, refused (429) past PONTE_SIGNIN_RATE per address and per username."""

    template_name = "account/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        rate = settings.PONTE_SIGNIN_RATE
        username = request.POST.get("username", "").strip().lower()
        by_address = usage_hit(request, group="signin:ip", subject=client_address(request), rate=rate)
        by_user = usage_hit(request, group="signin:user", subject=username, rate=rate) if username else None
        if any(usage is not None and usage.exceeded for usage in (by_address, by_user)):
            # A fresh form: validating the posted one would try the password anyway.
            form = self.form_class(request, initial={"username": username})
            response = self.render_to_response(self.get_context_data(form=form, refused=SIGNIN_REFUSED))
            response.status_code = 429
            response["Retry-After"] = "60"
            return response
        return super().post(request, *args, **kwargs)


class ResetView(auth_views.PasswordResetView):
    template_name = "account/password_reset.html"
    email_template_name = "account/password_reset_email.txt"
    subject_template_name = "account/password_reset_subject.txt"
    success_url = "/account/password-reset/sent/"


class ResetSentView(auth_views.PasswordResetDoneView):
    template_name = "account/password_reset_sent.html"


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "account/password_reset_confirm.html"
    success_url = "/account/password-reset/done/"


class ResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "account/password_reset_done.html"
