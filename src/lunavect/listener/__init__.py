"""Claude Code's HTTP hooks into the collector: the loopback listener, the rules a request is held to, its
per-install secret, and when the listener runs."""
