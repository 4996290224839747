"""The hook shim: what Claude Code, Codex and Gemini CLI run for every lifecycle event (`entry.main`).

It runs on the agent's hot path, so it must never hurt the agent: its modules import only the standard
library (and lunavect's pure classifiers and client descriptors, themselves standard-library only or
import-free), it prints nothing, always exits
0, never waits on the collector or a lock, and survives bad input, a full disk and an unwritable data folder.

One job per module, so the rest of lunavect can reuse a part without loading the entry point:
`entry` (stdin to spool line), `payload` (what is kept of an event), `notifications` (Claude Code's task
notifications), `jsoncodec` (JSON without `re`), `spoolfile` (where the spool is, its format, the append),
`procfacts` (/proc and `ps` facts about the agent process).

This file imports nothing: every import here would be paid for on each hook event.
"""
