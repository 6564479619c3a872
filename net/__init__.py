"""Outbound HTTP to addresses customers choose (webhook targets, profile-picture URLs), made safe
against server-side request forgery: `net.addresses` says which IPs may be reached, `net.transport`
connects only to those. Used by the webhooks and messaging apps alike."""
