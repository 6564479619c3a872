"""Writes on accounts and keys. Every function is keyword-only and typed."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.key_limits import KeyLimits, limits_for_new_key, require_covers
from accounts.keycache import key_resolve, keys_forget
from accounts.keys import digest_of, digests_match, key_material_new, prefix_of
from accounts.models import Account, ApiKey, Plan, Subscription
from accounts.netaddr import address_in, parse_networks
from core.errors import Conflict, Forbidden, NotAuthenticated, ValidationFailed

LAST_USED_RESOLUTION = timedelta(minutes=1)
# Compared against when the prefix is unknown, so unknown and wrong keys cost the same time.
_DUMMY_DIGEST = digest_of("ponte_xxxxxxxx_never-a-real-key")


class KeyIpNotAllowed(Forbidden):
    default_message = "This API key may not be used from this IP address."


@transaction.atomic
def account_create(
    *, name: str, plan: Plan, customer: str = "", email: str = "", bonds_subscription: str | None = None
) -> Account:
    account = Account(name=name, customer=customer or name, email=email, plan=plan)
    account.full_clean()
    account.save()
    if bonds_subscription:
        subscription_set(account=account, product=Subscription.Product.BONDS, status=bonds_subscription)
    return account


def _free_account_name(email: str) -> str:
    """A unique slug from the address's local part: `ana`, then `ana-2`, `ana-3`…"""
    base = (slugify(email.partition("@")[0]) or "customer")[:70]
    name, n = base, 1
    while Account.objects.filter(name=name).exists():
        n += 1
        name = f"{base}-{n}"
    return name


@transaction.atomic
def account_signup(*, email: str, password: str) -> tuple[AbstractBaseUser, Account]:
    """A customer signs up: a user named by the email and an account on the sign-up plan.

    The user is active at once unless PONTE_ACCOUNT_EMAIL_VERIFICATION is on; then it stays inactive
    until the link mailed to it is followed (portal.auth).
    """
    email = email.strip().lower()
    users = get_user_model()
    if (
        users.objects.filter(username__iexact=email).exists()
        or users.objects.filter(email__iexact=email).exists()
    ):
        raise Conflict("An account with this email already exists; sign in or reset the password.")
    user = users.objects.create_user(
        username=email,
        email=email,
        password=password,
        is_active=not settings.PONTE_ACCOUNT_EMAIL_VERIFICATION,
    )
    plan = Plan.objects.get(name=settings.PONTE_SIGNUP_PLAN)
    account = account_create(name=_free_account_name(email), plan=plan, customer=email, email=email)
    account.user = user
    account.save(update_fields=["user", "updated_at"])
    return user, account


@transaction.atomic
def subscription_set(
    *, account: Account, product: str, status: str, current_period_end: datetime | None = None
) -> Subscription:
    subscription, _ = Subscription.objects.get_or_create(account=account, product=product)
    subscription.status = status
    subscription.current_period_end = current_period_end
    subscription.full_clean()
    subscription.save()
    return subscription


# A customer may ask for the bonds subscription when they have none or it was canceled; an active,
# past-due or already requested one is left as it is.
_REQUESTABLE = {None, Subscription.Status.CANCELED}


@transaction.atomic
def bonds_subscription_request(*, account: Account) -> Subscription:
    """Record the customer's request for the bonds subscription; staff approve it in the admin."""
    current = (
        Subscription.objects.select_for_update()
        .filter(account=account, product=Subscription.Product.BONDS)
        .values_list("status", flat=True)
        .first()
    )
    if current not in _REQUESTABLE:
        raise Conflict(f"The account's bonds subscription is {current}; there is nothing to request.")
    return subscription_set(
        account=account, product=Subscription.Product.BONDS, status=Subscription.Status.REQUESTED
    )


@transaction.atomic
def bonds_subscription_approve(*, subscription: Subscription) -> Subscription:
    """Staff approve a requested bonds subscription: it becomes active (open-ended until billing sets
    a period end). A subscription in any other state is refused, so an approval never revives a
    canceled one nobody asked for."""
    subscription = Subscription.objects.select_for_update().get(pk=subscription.pk)
    if subscription.status != Subscription.Status.REQUESTED:
        raise Conflict(f"Subscription {subscription} is {subscription.status}, not requested.")
    return subscription_set(
        account=subscription.account, product=subscription.product, status=Subscription.Status.ACTIVE
    )


def allowed_ips_clean(values: list[str]) -> list[str]:
    """A key's IP allow-list as stored: each IP or CIDR normalised to its network ("10.0.0.1/32").
    Shared by the API and the admin form, so both accept and store exactly the same values."""
    try:
        return [str(network) for network in parse_networks(values)]
    except ValueError as exc:
        raise ValidationFailed(f"allowed_ips: {exc}") from None


def allowed_sessions_clean(values: list[str]) -> list[str]:
    """A key's session allow-list as stored: canonical session UUIDs."""
    sessions = []
    for value in values:
        try:
            sessions.append(str(UUID(str(value))))
        except ValueError:
            raise ValidationFailed(f"allowed_sessions: {value!r} is not a session UUID") from None
    return sessions


@transaction.atomic
def api_key_create(
    *,
    account: Account,
    role: str,
    name: str = "",
    expires_at: datetime | None = None,
    allowed_ips: list[str] | None = None,
    allowed_sessions: list[str] | None = None,
    creator: ApiKey | None = None,
) -> tuple[ApiKey, str]:
    """Create a key and return it with its plaintext, which is never stored.

    `creator` is the key asking, when a key asks (the API): the new key then stays within its limits
    (accounts.key_limits), inheriting each one not asked for."""
    if role not in ApiKey.Role.values:
        raise ValidationFailed(f"role must be one of {', '.join(ApiKey.Role.values)}; got {role!r}")
    ips, sessions = allowed_ips_clean(allowed_ips or []), allowed_sessions_clean(allowed_sessions or [])
    if creator is not None:
        limits = limits_for_new_key(
            creator=creator, requested=KeyLimits(tuple(sessions), tuple(ips), expires_at)
        )
        sessions, ips, expires_at = list(limits.sessions), list(limits.ips), limits.expires_at
    plaintext, prefix, digest = key_material_new()
    key = ApiKey(
        account=account,
        role=role,
        name=name,
        prefix=prefix,
        digest=digest,
        expires_at=expires_at,
        allowed_ips=ips,
        allowed_sessions=sessions,
    )
    key.full_clean()
    key.save()
    return key, plaintext


def api_key_revoke(*, key: ApiKey, by: ApiKey | None = None) -> ApiKey:
    """Revoke `key`; when a key asks (`by`), only a key no wider than itself (403 otherwise)."""
    if by is not None:
        require_covers(by, key)
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at", "updated_at"])
    return key


def api_key_authenticate(*, plaintext: str, client_ip: str) -> ApiKey:
    """Resolve a presented key, or raise.

    Unknown, malformed, revoked and expired keys all raise the same NotAuthenticated, so a caller
    learns nothing about which keys exist. A valid key used from outside its allow-list raises
    KeyIpNotAllowed (403).
    """
    plaintext = plaintext.strip()
    prefix = prefix_of(plaintext)
    key = key_resolve(prefix) if prefix else None
    now = timezone.now()
    api_key_check(key=key, plaintext=plaintext, client_ip=client_ip, now=now)
    api_key_touch(key=key, now=now)
    return key


def api_key_check(*, key: ApiKey | None, plaintext: str, client_ip: str, now: datetime) -> None:
    """Raise unless `plaintext` is `key`'s and the key may be used now from `client_ip` (the rules of
    api_key_authenticate, on a key already resolved; None: the prefix is unknown)."""
    matches = digests_match(key.digest if key else _DUMMY_DIGEST, plaintext)
    if key is None or not matches or key.is_revoked or key.is_expired(now) or not key.account.is_active:
        raise NotAuthenticated()
    if key.allowed_ips and not address_in(client_ip, key.allowed_ips):
        raise KeyIpNotAllowed()


def api_keys_forget(*, prefixes: list[str]) -> None:
    """Keys changed: every process resolves them again at its next call (accounts.keycache)."""
    keys_forget(prefixes)


def api_key_touch(*, key: ApiKey, now: datetime) -> None:
    """Record last use at most once a minute: an atomic cache claim, then one conditional UPDATE."""
    if key.last_used_at and now - key.last_used_at < LAST_USED_RESOLUTION:
        return
    if cache.add(f"accounts:key-touched:{key.pk}", 1, int(LAST_USED_RESOLUTION.total_seconds())):
        ApiKey.objects.filter(pk=key.pk).exclude(last_used_at__gt=now - LAST_USED_RESOLUTION).update(
            last_used_at=now
        )
    # Another call touched it within the minute, or this one did: either way the (possibly cached)
    # instance need not ask again for a minute.
    key.last_used_at = now
