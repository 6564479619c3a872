"""Ponte's library floor: what every app shares (error rendering and base errors, cache and breaker,
encryption and fields, logs, metrics, the WSGI bridge, filters, time formats, environment readers). It
imports no app."""
