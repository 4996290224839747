"""The contract every reader implements (`Source`, `Batch`, `Known`, a live catalog's `LiveEntry`), and the hook
spool it shares with the shim."""
