"""What every command shares: the one-line failure, the store, a collector caught up, the session resolver.

Imports stay light (click only) because every command module imports this one at start-up; the store,
the collector and the setup probe are imported when a command first needs them.
"""

from __future__ import annotations

import sqlite3
from typing import IO, Any

import click

from lunavect.core.terminal_text import clean, clean_lines

# How much of a failure's message is shown: it may quote what the person typed (a 128 KB id) or a file.
MESSAGE_LIMIT = 500


class Failure(click.ClickException):
    """A failure the person can act on: printed as one line, exit code 1."""

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"lunavect: {clean(self.format_message(), MESSAGE_LIMIT)}", err=True)


class BadUsage(click.ClickException):
    """Bad usage (an unknown option, a value an option cannot take), said as one line like every other failure,
    with where the command's help is, and exit code 2: click's own usage errors, and lunavect's checks of a value
    (`click.BadParameter`, `click.UsageError`), all come through here (`root.LunavectGroup`)."""

    exit_code = 2

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(error.format_message())
        self.where = error.ctx.command_path if error.ctx is not None else "lunavect"

    def show(self, file: IO[Any] | None = None) -> None:
        text = clean(self.format_message(), MESSAGE_LIMIT)
        click.echo(f"lunavect: {text} (see `{clean(self.where, 80)} -h`)", err=True)


def json_option(command: Any) -> Any:
    """The one `--json` flag every command that reports takes (tests/unit/cli/test_json_everywhere.py checks that
    each has it and that what it prints parses)."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)


def print_json(value: Any) -> None:
    """What a command reports, as one JSON document on stdout (msgspec encodes structs and dates; a path as its text)."""
    import msgspec

    click.echo(msgspec.json.encode(value, enc_hook=str).decode())


def print_outcome(result: Any, as_json: bool, detail: str | None = None) -> None:
    """Say how an action on a session went (`open`, `reply`, `answer`) the one way: as JSON, exiting 1 when it
    did not happen, so that a script can tell; else its message on success, or a one-line failure with `detail`
    (what the person can do about it) in place of the bare message. The message may name a pane's title or a
    folder, so it is cleaned for the terminal."""
    if as_json:
        print_json(result.as_dict())
        if not result.ok:
            raise SystemExit(1)
        return
    if result.ok:
        click.echo(clean_lines(result.message))
        return
    raise Failure(f"{result.outcome}: {result.message if detail is None else detail}")


def open_store() -> sqlite3.Connection:
    """The store, or a one-line Failure saying why it cannot be opened."""
    from lunavect import store

    try:
        return store.connect()
    except (store.StoreError, OSError) as exc:
        raise Failure(str(exc)) from None


def fresh_store() -> sqlite3.Connection:
    """The store, with a collector running and caught up with every event spooled so far."""
    from lunavect.collector import process as collector
    from lunavect.sync.presence import note_person

    conn = open_store()
    note_person(conn)  # sync: the machine where a front end was used last notifies for the other hosts
    try:
        # Never stale data without a word: say so (on stderr, so scripts reading stdout are unaffected).
        if not collector.ensure_running():
            click.echo(
                "lunavect: warning: the collector could not start; this may be out of date (see `lunavect doctor`)",
                err=True,
            )
        elif not collector.wait_caught_up(conn):
            click.echo(
                "lunavect: warning: the collector has not caught up; this may be out of date (see `lunavect doctor`)",
                err=True,
            )
    except OSError as exc:
        raise Failure(f"cannot start the collector: {exc}") from None
    return conn


def complete_session(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """A session id argument's shell completion (`lunavect completion`): the stored sessions whose id begins with
    what is typed, each with its state and title. Cheap and silent: it reads the store only if there is one,
    starts no collector, and a store it cannot read completes nothing rather than print a traceback."""
    from click.shell_completion import CompletionItem

    from lunavect import paths, store
    from lunavect.listing.arrangement import candidates

    if not paths.store_path().is_file():
        return []
    try:
        conn = store.connect()
        try:
            found = candidates(conn, incomplete)
        finally:
            conn.close()
    except (store.StoreError, OSError, sqlite3.Error):
        return []
    return [CompletionItem(word, help=clean(about, 80)) for word, about in found]


def session_key(conn: sqlite3.Connection, text: str) -> str:
    """The stored session a person names on the command line (see `arrangement.resolve_id`), or a Failure."""
    from lunavect.listing.arrangement import ArrangeError, resolve_id

    try:
        return resolve_id(conn, text)
    except ArrangeError as exc:
        raise Failure(str(exc)) from None


def empty_explanation(conn: sqlite3.Connection) -> str:
    """Why the list is empty and what to do about it, as the panel also says it: from the report the collector
    stored (so `watch` reads no client's configuration on each redraw), or a look of its own before any
    collector has looked."""
    from lunavect.collector import setup_report

    report = setup_report.stored(conn)
    if report is None:
        from lunavect.collector import setup_probe

        report = setup_probe.probe()
    return "\n".join(setup_report.explain(report))
