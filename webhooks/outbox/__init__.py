"""The outbox: durable jobs and everything done to them once (claim with a lease, renew, retry on a
schedule, dead-letter, resend, sweep, purge, metrics).

Its clients are the kinds of job: webhook deliveries (registered and instance webhooks, `deliveries`)
and the Chatwoot mirror's jobs (integrations.chatwoot.jobs, through `ordered`). A client says what one
attempt does and how its outcome is judged; no code outside this package claims or leases.
"""
