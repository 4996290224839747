"""Reading a session's conversation as its client shows it: the person's prompts, the assistant's text, tool
calls with a one-line summary, shortened results, errors, compaction and background-task events.

Read on demand from the client's own files (a Claude Code transcript, a Codex rollout) in bounded windows
and never kept: nothing here writes, logs or sends what it reads. Front ends import this package (show,
the panel's peek, the web panel); it parses both clients' records itself, so it never reaches the client
packages that feed the collector, and they never depend on it.
"""
