"""The main commands' help ends with examples a person can copy (as uv's, ruff's and gh's do)."""

from __future__ import annotations

import pytest

MAIN = ["list", "open", "next", "show", "status", "usage", "doctor", "web", "paths", "completion"]


@pytest.mark.parametrize("command", MAIN)
def test_the_help_shows_examples(iso_env, command):
    text = iso_env.cli(*command.split(), "-h").stdout
    examples = text[text.index("Examples:") :].split("\n\n")[0].splitlines()[1:]
    assert examples and all(line.strip().startswith(("lunavect ", "tail ", "echo ")) for line in examples), text
