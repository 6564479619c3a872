"""The integrations app's models live with each integration (integrations.chatwoot.models,
integrations.bots.models)."""

from integrations.bots.models import Bot, BotJob, Conversation  # noqa: F401  (registered through this module)
from integrations.chatwoot.models import (  # noqa: F401  (registered with Django through this module)
    ChatLink,
    ChatwootIntegration,
    MessageLink,
    MirrorJob,
)
