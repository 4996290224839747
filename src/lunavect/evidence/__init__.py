"""The contract every reader implements (`Source`, `Batch`, `Known`), and the hook spool it shares with the shim."""
