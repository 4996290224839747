"""Reading a session's conversation as its client shows it: the person's prompts, the assistant's text, tool
calls with a one-line summary, shortened results, errors, compaction and background-task events.

Read on demand from the client's own files (a Claude Code transcript, a Codex rollout) in bounded windows
and never kept: nothing here writes, logs or sends what it reads. Which file, and what its records mean, is
each client's own knowledge (`lunavect.clients.claude.conversation`, `lunavect.clients.codex.conversation`, reached through
their faces: `listing.conversation.find_source`); this package is the reading that every client's
conversation shares (windows, following, compressed files, the displayed message), and imports no client.
"""
