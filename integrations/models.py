"""The integrations app's models live with each integration (integrations.chatwoot.models)."""

from integrations.chatwoot.models import (  # noqa: F401  (registered with Django through this module)
    ChatLink,
    ChatwootIntegration,
    MessageLink,
    MirrorJob,
)
