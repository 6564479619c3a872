"""English pages keep unambiguous ISO dates (2026-03-10) rather than Django's American 03/10/2026;
the rest of Django's English formats stand."""

SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i:s"
