"""Many machines, one list: each collector puts its sessions into a NATS JetStream key-value bucket and
watches the other hosts' keys into its own store (DESIGN.md, "Many machines").

Layout: `keys` (the bucket's key layout), `config` (what `lunavect sync set` stores), `remote` (the other
hosts' rows in the store and how readers see them), `client` (the NATS client, in a thread of its own inside
the collector). Only `client` and `connect` import nats-py, the optional extra `lunavect[sync]`.
"""
