"""Registered webhooks: the gateway's `/gateway/webhooks` records, their filters and reads."""
