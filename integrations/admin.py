from integrations.bots import admin as bots_admin  # noqa: F401  (registers the bots' admin pages)
from integrations.chatwoot import admin  # noqa: F401  (registers the Chatwoot admin pages)
