"""lunavect: every Claude Code, Codex, Gemini CLI and OpenCode session on your machines, in one live list.

Kept free of imports on purpose: the hook shim imports this package's pure classifiers on the agent's hot
path, and any import here would be paid for on every hook event.
"""

__version__ = "0.1.0"
