"""The job system: durable jobs and everything done to them once (claim with a lease, renew, retry on a
schedule, dead-letter, resend, sweep, purge, metrics).

Its clients are the kinds of job, each with a table of its own (`table.JobTable`, the columns of
`columns.JobColumns`): webhook deliveries (webhooks.outbox), the Chatwoot mirror's jobs
(integrations.chatwoot.jobs) and the event stream's (webhooks.stream), the last two through `ordered`. A
client says what one attempt does and how its outcome is judged; the claiming and the leases are here.
This package imports only `core` and `net`, and no app imports it but the domain apps above it.
"""
