"""Putting lunavect's hook command into the clients' hooks files, shared by every client's installer.

Claude Code, Codex and Gemini CLI read a hooks file of the same shape (their settings.json, Codex's hooks.json),
so the careful editing of the person's file (`hooks_file`), its status (`file_status`), the command that runs
the shim (`command`), a file replaced in one rename (`atomic`) and what `hooks install` prints (`outcome`) live
here once, and no client package imports another.
"""
