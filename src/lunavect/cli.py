"""The `lunavect` command.

`lunavect hook <client>` is answered before click or anything else is imported: it runs for every agent
event and must cost no more than an interpreter start. Every other command fails with one clear line,
never a traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from lunavect.hook import main as hook_main

        hook_main(argv[1:])
        return
    from lunavect.cli_commands import run

    run()


if __name__ == "__main__":
    main()
