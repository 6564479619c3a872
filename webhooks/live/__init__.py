"""The live event socket (`/ws`): every event the outbox records, streamed to WebSocket
clients as the registered-webhook envelope plus its `id` and `seq`.

The writing side is webhooks.live.broadcast (called by `emit()`: once the event's transaction commits it is
published to Redis, or handed to this process's hub on the embedded default). Here:

* `hub`: one per web process: receives published events (Redis pub/sub, or in-process plus a poll of
  the outbox for events other processes wrote) and offers each to the sockets that listen to it;
* `access`: the sync reads a socket needs (key, sessions, replay, poll), run on the web process's pool;
* `frames`: the JSON frames (an event: the webhook body plus `id` and `seq`; control frames);
* `asgi`: the WebSocket endpoint itself, on the event loop.
"""
