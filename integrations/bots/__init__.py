"""Bots on a session: automations that answer customers on their own (docs/integrations.md).

A bot belongs to one session and is of one kind (`http`: any service that takes a signed webhook and
answers with replies, such as n8n, Make or Zapier; `openai`: an OpenAI-compatible Chat Completions
endpoint; `typebot`: Typebot's public chat API). The sink (`sink`) records a job for a message that a
bot should answer, in the event's transaction; a worker runs it (`runner`) outside any transaction,
calls the bot through the SSRF-safe transport and sends its replies as the session's own messages.
"""
