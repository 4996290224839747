"""Many machines, one list: each collector puts its sessions into a NATS JetStream key-value bucket and
watches the other hosts' keys into its own store (DESIGN.md, "Many machines"; README, "Many machines").

Layout: `keys` (the bucket's key layout), `config` (what `lunavect sync set` stores), `connect` (servers,
credentials, TLS), `client` (the NATS client, in a thread of its own inside the collector), `link` (the
collector's side: start, stop, hand over rows), `remote` (the other hosts' rows in the store and how
readers see them), `arrange` (the person's arrangement across machines), `presence` and `notify_feed`
(which machine notifies for the others' sessions, and what it is fed), `admin` (the one-off checks of
`sync set` and `sync off`). Only `client`, `admin` and `connect`'s callers import nats-py, the optional
extra `lunavect[sync]`.
"""
