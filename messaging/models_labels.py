"""Labels of WhatsApp Business (`/api/labels`) and which chats carry them, kept in step with the
`label_edit` and `label_association` events (messaging.services.labels)."""

from __future__ import annotations

from django.db import models

#: WhatsApp's label palette: colours are indexes 0 to 19.
LABEL_COLORS = 20


class Label(models.Model):
    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="labels")
    label_id = models.CharField(max_length=32, help_text="WhatsApp's id of the label (a small number).")
    name = models.CharField(max_length=100)
    color = models.PositiveSmallIntegerField(default=0, help_text="An index of WhatsApp's palette, 0 to 19.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "label_id"], name="one_label_row_per_id")]

    def __str__(self) -> str:
        return self.name


class ChatLabel(models.Model):
    """A label on a chat (chat JIDs as the chat list names them)."""

    label = models.ForeignKey(Label, on_delete=models.CASCADE, related_name="chats")
    chat = models.CharField(max_length=100)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["label", "chat"], name="one_chat_label_row")]

    def __str__(self) -> str:
        return f"{self.label_id} on {self.chat}"
