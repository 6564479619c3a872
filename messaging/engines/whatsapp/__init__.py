"""The WhatsApp driver of the engine processes (`ENGINE_DRIVER=whatsapp`): sessions on neonize.

neonize is the Python binding of whatsmeow (the WhatsApp multi-device protocol, compiled into the
wheel). Modules: `library` (the guarded import: the bundled binary or nothing, never a download),
`inbound` (library events → Ponte's typed events), `outbound` (Ponte's commands → library calls),
`errors` (library failures → engine exceptions), `driver` (the Engine hosting one client per session).
Only `driver` and `library` touch the library's runtime; the mappings are pure and tested against a
stand-in client fed with the library's own protobuf types.
"""
