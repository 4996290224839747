"""Always-visible counts for status bars, tmux and the tray: one summary of the store, several renderings."""
