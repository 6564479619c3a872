"""ASGI entry point served by uvicorn.

The bonds MCP server is mounted here (see the bonds MCP issue); everything else goes to Django.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()
application = django_application
