"""Writes of the messaging app, one module per sub-domain: sessions, messages, profile, groups, and
`events` (what engines report)."""
