"""The LID ↔ phone map of a session (messaging.services.lids); imported by messaging.models."""

from __future__ import annotations

from django.db import models


class LidMapping(models.Model):
    """One person's two ids on one session: the linked id WhatsApp shows (`…@lid`) and the phone JID
    (`…@s.whatsapp.net`). Learned from events that carry both and, on the WhatsApp driver, from
    whatsmeow's LID store; each id maps to one other at a time (a newer pair replaces an older one)."""

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="lid_mappings")
    lid = models.CharField(max_length=100)
    pn = models.CharField(max_length=100, help_text="The phone number's JID.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "LID mapping"
        constraints = [
            models.UniqueConstraint(fields=["session", "lid"], name="one_pn_per_lid"),
            models.UniqueConstraint(fields=["session", "pn"], name="one_lid_per_pn"),
        ]

    def __str__(self) -> str:
        return f"{self.lid} = {self.pn}"
