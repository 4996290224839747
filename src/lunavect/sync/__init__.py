"""Many machines, one list: each collector puts its sessions into a NATS JetStream key-value bucket and
watches the other hosts' keys into its own store (DESIGN.md, "Many machines"; docs, "Many machines").

Layout: `keys` (the bucket's key layout), `config` (what `lunavect sync set` stores), `connect` (servers,
credentials, TLS), `client` (the NATS client, in a thread of its own inside the collector), `bucket` (the
bucket as every conversation with the server meets it), `remote` (the other hosts' rows in the store and how
readers see them), `remote_row` (one row another machine sent, bounded once where it enters), `own_keys`
(which entries under this host's name this machine wrote), `open_server` (whether anyone may write them),
`arrange` (the person's arrangement across machines), `presence` (which machine notifies for the others'
sessions), `admin` (the one-off checks of `sync set` and `sync off`). The collector's side (start, stop,
hand over rows, the notification feed) is `collector.sync_link` and `collector.notify_feed`. Only `client`,
`admin` and `connect`'s callers import nats-py, the optional extra `lunavect[sync]`.
"""
