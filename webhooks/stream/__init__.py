"""The event stream: every event published to a RabbitMQ topic exchange, from the outbox.

With PONTE_EVENT_STREAM_URL set, emit() writes one `StreamJob` per event in the event's own transaction;
the job system's ordered queue (jobs.queue.Queue) publishes them one at a time per conversation, in
order, with publisher confirms, retrying while the broker is away: an outage delays events, never loses
them.
"""
