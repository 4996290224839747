"""tmux shows lunavect's counts and each agent pane's state from user options the collector publishes."""
