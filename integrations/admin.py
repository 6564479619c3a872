from integrations.chatwoot import admin  # noqa: F401  (registers the Chatwoot admin pages)
