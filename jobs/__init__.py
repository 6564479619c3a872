"""The job system: durable jobs and everything done to them once (enqueue, claim with a lease, renew,
retry on a schedule, dead-letter, resend, sweep, purge, metrics), behind one public face: a queue
(`queue.JobQueue`; `queue.Queue`, declared by a client) drained by one loop (`drain.run`).

Its clients are the kinds of job, each with a table of its own (`table.JobTable`, the columns of
`columns.JobColumns`): the webhook deliveries (webhooks.outbox.deliveries, batches per target), and, in
order per group, the Chatwoot mirror's jobs (integrations.chatwoot.jobs), the event stream's
(webhooks.stream.jobs) and the official channels' inbound rows and Graph API calls
(messaging.channels.queue, calls). A client says what one attempt does and how its failure is judged; the
claiming, the leases, the settling and the retries' wake-ups (read from the ledger, docs/decisions/0024)
are here. This package imports only `core` and `net`, and no app imports it but the domain apps above it.
"""
