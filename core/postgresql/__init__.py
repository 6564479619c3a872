"""Django's PostgreSQL backend with a health check that costs no round trip on a quiet connection
(base.py; docs/decisions/0039)."""
