"""Brazilian pages: Django's pt_BR formats (10/03/2026, 1.234,5), with seconds in the short date and
time, which the delivery log needs to tell retries apart."""

SHORT_DATETIME_FORMAT = "d/m/Y H:i:s"
