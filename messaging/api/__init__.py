"""Thin views of the messaging REST API (`/api/`), its gateway routes and the sandbox routes."""
