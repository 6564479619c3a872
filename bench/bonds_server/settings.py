"""Settings for bench/bonds.py: Ponte's own, plus a URLconf with the bare comparison views."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bonds_server.urls"

# Persistent database connections, as production runs them (DB_CONN_MAX_AGE for PostgreSQL): without
# them every keyed call would also pay for opening SQLite and running its PRAGMAs.
DATABASES["default"]["CONN_MAX_AGE"] = 600  # noqa: F405

# The bench never collects static files; whitenoise's warning about it would only add noise.
import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="No directory at")
