"""The words sync's own state is stored under, in a module of its own that imports nothing: every reader of
the store (`lunavect.listing.hosts`, so `list` and `counts`) needs a few of them, and none of them needs
`sync.remote`'s intake of other machines' rows (its imports are a tenth of a quick command's start)."""

# The collector table's keys for the sync client's own state.
REVISION = "sync.revision"
CONNECTED_SINCE = "sync.connected_since"
DISCONNECTED_SINCE = "sync.disconnected_since"
ERROR = "sync.error"
STARTED = "sync.started"
# How many entries of other machines were refused where they entered, since sync was turned on (`sync status`).
REFUSED = "sync.refused"
# How many rows of other machines were kept with fields cut to length (docs, "Many machines": the bounds).
CUT = "sync.cut"
# Set while the server lets clients without credentials write this host's keys (`open_server`).
OPEN_SERVER = "sync.open_server"
# The rules by which other machines' rows were taken in (`remote_row`, `_Held`): rows a store kept under older
# rules are read again from the bucket once (`readmit_if_older`).
INTAKE = "sync.intake"
INTAKE_VERSION = "3"
# A row decided by its host's missing heartbeat says so in its basis.
HEARTBEAT_BASIS = "heartbeat"
