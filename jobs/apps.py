from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The job system's app: no tables of its own (each client declares its job table from
    `jobs.columns.JobColumns`), installed so its abstract model lives in an app."""

    name = "jobs"
    default_auto_field = "django.db.models.BigAutoField"
