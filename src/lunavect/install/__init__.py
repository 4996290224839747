"""Putting lunavect's hook command into the clients' hooks files, shared by `claude/` and `codex/`.

Both clients read a hooks file of the same shape (Claude Code's settings.json, Codex's hooks.json), so the
careful editing of the person's file (`hooks_file`) and the command that runs the shim (`command`) live here
once, and neither client package imports the other.
"""
