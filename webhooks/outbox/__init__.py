"""The outbox: the webhooks' deliveries as a client of the job system (`jobs/`: claim with a lease,
renew, retry on a schedule, dead-letter, resend, sweep, purge): the delivery drain, its hot statements,
per-target throttles and rate limits, auto-disable, retention and per-attempt metrics.
"""
