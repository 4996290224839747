"""The `lunavect` command.

`lunavect hook <client>` is answered before click or anything else is imported: it runs for every agent
event and must cost no more than an interpreter start. Every other command goes to the click group in
`lunavect.cli.root`, which fails with one clear line, never a traceback.

Layout: `root` holds the group and the one list of command modules; `common` the store and collector
helpers every command shares; each other module is one group of commands.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from lunavect.shim.entry import main as hook_main

        hook_main(argv[1:])
        return
    from lunavect.cli.root import run

    run()


if __name__ == "__main__":
    main()
