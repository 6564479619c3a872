"""What a bot is made of on the wire: its rules, and each kind's settings (checked here, for the API and
the admin alike). Secrets are write-only: a reply says only whether one is set."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

from core.api_fields import StrictBooleanField
from integrations.bots.models import Bot
from messaging.api.bases import RecipientField
from net.transport import validate_target_url


def _url(value: str) -> str:
    validate_target_url(value)  # a scheme, a host, and no refused address (the SSRF rules)
    return value


class HttpSettings(serializers.Serializer):
    url = serializers.URLField(max_length=500, validators=[_url], help_text="Where Ponte POSTs each turn.")
    timeoutSeconds = serializers.IntegerField(min_value=1, max_value=30, default=10)


class OpenAISettings(serializers.Serializer):
    baseUrl = serializers.URLField(
        max_length=500,
        validators=[_url],
        help_text="e.g. https://api.openai.com/v1 or http://ollama:11434/v1",
    )
    model = serializers.CharField(max_length=100)
    systemPrompt = serializers.CharField(max_length=4000, required=False, default="", allow_blank=True)
    temperature = serializers.FloatField(min_value=0, max_value=2, default=0.7)
    maxTokens = serializers.IntegerField(min_value=1, max_value=8192, default=500)
    contextMessages = serializers.IntegerField(
        min_value=1,
        max_value=50,
        default=10,
        help_text="How many of the chat's last messages the model sees.",
    )
    timeoutSeconds = serializers.IntegerField(min_value=1, max_value=120, default=30)


class TypebotSettings(serializers.Serializer):
    baseUrl = serializers.URLField(max_length=500, validators=[_url], help_text="e.g. https://typebot.io")
    typebot = serializers.RegexField(
        r"^[A-Za-z0-9_-]{1,100}$", help_text="The bot's public id (its share URL's last part)."
    )
    listButtonText = serializers.CharField(max_length=20, default="Options")
    timeoutSeconds = serializers.IntegerField(min_value=1, max_value=30, default=10)


SETTINGS = {"http": HttpSettings, "openai": OpenAISettings, "typebot": TypebotSettings}


class BotRulesSerializer(serializers.Serializer):
    trigger = serializers.ChoiceField(choices=Bot.Trigger.choices, default=Bot.Trigger.ALL)
    operator = serializers.ChoiceField(choices=Bot.Operator.choices, default=Bot.Operator.CONTAINS)
    value = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    ignoreGroups = StrictBooleanField(default=True)
    stopKeyword = serializers.CharField(max_length=50, default="#sair", allow_blank=True)
    expireMinutes = serializers.IntegerField(min_value=0, max_value=43200, default=60)
    pauseMinutes = serializers.IntegerField(min_value=1, max_value=43200, default=60)
    debounceSeconds = serializers.IntegerField(min_value=0, max_value=60, default=3)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("trigger") == "keyword":
            if not data.get("value", "").strip():
                raise serializers.ValidationError({"value": "A keyword trigger needs a value."})
            if data.get("operator") == "regex":
                try:
                    re.compile(data["value"])
                except re.error as exc:
                    raise serializers.ValidationError(
                        {"value": f"Not a regular expression: {exc}."}
                    ) from None
        return data


class BotInput(serializers.Serializer):
    sessionId = serializers.CharField(max_length=64)
    name = serializers.CharField(max_length=100)
    kind = serializers.ChoiceField(choices=Bot.Kind.choices)
    enabled = StrictBooleanField(default=True)
    priority = serializers.IntegerField(min_value=0, max_value=1000, default=100)
    settings = serializers.DictField(help_text="The kind's settings (docs/integrations.md).")
    secret = serializers.CharField(
        max_length=500,
        required=False,
        write_only=True,
        help_text="http: the signing secret (16+ characters, required); openai: the API key; typebot: a "
        "token for private bots. Never returned.",
    )
    rules = BotRulesSerializer(required=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        kind_settings = SETTINGS[data["kind"]](data=data["settings"])
        if not kind_settings.is_valid():
            raise serializers.ValidationError({"settings": kind_settings.errors})
        data["settings"] = dict(kind_settings.validated_data)
        if data["kind"] == "http" and "secret" in data and len(data["secret"]) < 16:
            raise serializers.ValidationError(
                {"secret": "The http kind's signing secret needs 16+ characters."}
            )
        if "rules" not in data:
            rules = BotRulesSerializer(data={})
            rules.is_valid(raise_exception=True)
            data["rules"] = dict(rules.validated_data)
        return data


class BotOutput(serializers.Serializer):
    id = serializers.IntegerField()
    sessionId = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Bot.Kind.choices)
    enabled = serializers.BooleanField()
    priority = serializers.IntegerField()
    settings = serializers.DictField()
    secretSet = serializers.BooleanField()
    rules = BotRulesSerializer()
    disabledReason = serializers.CharField(help_text="Why Ponte disabled the bot (failing), else empty.")
    lastError = serializers.CharField()
    lastErrorAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class BotConversationOutput(serializers.Serializer):
    chatId = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "paused"])
    pausedUntil = serializers.DateTimeField(allow_null=True)
    startedAt = serializers.DateTimeField()
    lastActivityAt = serializers.DateTimeField()


class BotPauseInput(serializers.Serializer):
    chatId = RecipientField()
    minutes = serializers.IntegerField(min_value=1, max_value=43200)


class BotResumeInput(serializers.Serializer):
    chatId = RecipientField()
