"""Instance webhooks: per-session configuration, routing into the outbox, the instance interface and
its delivery statistics."""
