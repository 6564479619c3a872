"""Bots in the account area: create one on a session, turn it on or off, delete it, and see its
conversations (pause or resume a chat) and its last error. The same services as the API."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from rest_framework.exceptions import ValidationError

from accounts.models import Account
from integrations.bots import services
from integrations.bots.models import Bot
from integrations.bots.serializers import BotInput, BotPauseInput, BotResumeInput
from portal.common import account_required
from portal.forms import BotForm
from portal.keys import session_choices


def _input(form: BotForm) -> dict[str, Any]:
    """The form as the API's body (the kind's own settings only)."""
    values = form.cleaned_data
    kind = values["kind"]
    settings: dict[str, Any] = {"url": values["url"]} if kind == "http" else {"baseUrl": values["url"]}
    if kind == "openai":
        settings |= {"model": values["model"], "systemPrompt": values["system_prompt"]}
    if kind == "typebot":
        settings["typebot"] = values["typebot"]
    body: dict[str, Any] = {
        "sessionId": values["session"],
        "name": values["name"],
        "kind": kind,
        "settings": settings,
        "rules": {"trigger": values["trigger"], "operator": values["operator"], "value": values["value"]},
    }
    if values["secret"]:
        body["secret"] = values["secret"]
    return body


def _errors_shown(form: BotForm, error: ValidationError) -> None:
    detail = error.detail if isinstance(error.detail, dict) else {"__all__": error.detail}
    for name, problem in detail.items():
        text = str(problem[0] if isinstance(problem, list) else problem)
        if isinstance(problem, dict):  # settings/rules: their own fields
            text = "; ".join(
                f"{key}: {value[0] if isinstance(value, list) else value}" for key, value in problem.items()
            )
        form.add_error(None, f"{name}: {text}" if name != "__all__" else text)


@account_required
def bot_list(request: HttpRequest, account: Account) -> HttpResponse:
    form = BotForm(request.POST or None, sessions=session_choices(account))
    if request.method == "POST" and form.is_valid():
        data = BotInput(data=_input(form))
        try:
            data.is_valid(raise_exception=True)
        except ValidationError as error:
            _errors_shown(form, error)
        else:
            session = account.sessions.get(pk=data.validated_data["sessionId"])
            bot = services.bot_create(session=session, values=dict(data.validated_data))
            messages.success(request, gettext("Bot %(name)s created.") % {"name": bot.name})
            return redirect("account:bot", bot_id=bot.pk)
    bots = (
        Bot.objects.filter(session__account=account).select_related("session").order_by("session", "priority")
    )
    context = {"form": form, "bots": bots}
    return render(request, "portal/bots.html", context, status=400 if form.errors else 200)


def _own_bot(account: Account, bot_id: int) -> Bot:
    return get_object_or_404(Bot.objects.select_related("session"), pk=bot_id, session__account=account)


@account_required
def bot_detail(request: HttpRequest, account: Account, bot_id: int) -> HttpResponse:
    bot = _own_bot(account, bot_id)
    context = {"bot": bot, "conversations": services.conversations_active(bot)}
    return render(request, "portal/bot.html", context)


@require_POST
@account_required
def bot_toggle(request: HttpRequest, account: Account, bot_id: int) -> HttpResponse:
    bot = _own_bot(account, bot_id)
    services.bot_update(bot=bot, values={"enabled": not bot.enabled})
    text = gettext("Bot %(name)s turned on.") if bot.enabled else gettext("Bot %(name)s turned off.")
    messages.success(request, text % {"name": bot.name})
    return redirect("account:bot", bot_id=bot.pk)


@require_POST
@account_required
def bot_delete(request: HttpRequest, account: Account, bot_id: int) -> HttpResponse:
    bot = _own_bot(account, bot_id)
    services.bot_delete(bot=bot)
    messages.success(request, gettext("Bot %(name)s deleted.") % {"name": bot.name})
    return redirect("account:bots")


@require_POST
@account_required
def bot_chat(request: HttpRequest, account: Account, bot_id: int) -> HttpResponse:
    """Pause the bot in a chat for an hour, or let it answer there again (the conversation list's buttons)."""
    bot = _own_bot(account, bot_id)
    chat = request.POST.get("chat", "")
    if request.POST.get("action") == "pause":
        data = BotPauseInput(data={"chatId": chat, "minutes": 60})
        if data.is_valid():
            services.conversation_pause(bot=bot, chat=data.validated_data["chatId"], minutes=60)
            messages.success(request, gettext("The bot is quiet in this chat for an hour."))
    else:
        data = BotResumeInput(data={"chatId": chat})
        if data.is_valid():
            services.conversation_resume(bot=bot, chat=data.validated_data["chatId"])
            messages.success(request, gettext("The bot answers in this chat again."))
    if data.errors:
        messages.error(request, gettext("Unknown chat."))
    return redirect("account:bot", bot_id=bot.pk)
