"""`lunavect sync set|status|off`: one list across the person's machines, through a NATS server."""

from __future__ import annotations

import time

import click
import msgspec

from lunavect.cli.common import Failure, open_store
from lunavect.core.terminal_text import clean


@click.group("sync")
def sync_group() -> None:
    """Share this machine's sessions with your other machines through NATS JetStream."""


@sync_group.command("set")
@click.argument("url")
@click.option("--creds", type=click.Path(dir_okay=False), help="A NATS .creds file (JWT and seed).")
@click.option("--user", help="A user name; its password comes from --password-file.")
@click.option("--password-file", type=click.Path(dir_okay=False), help="The file holding the user's password.")
@click.option("--token-file", type=click.Path(dir_okay=False), help="The file holding a token.")
@click.option("--tls-ca", type=click.Path(dir_okay=False), help="The CA file that signed the server's certificate.")
@click.option("--host-name", help="This machine's name in every list (default: its short hostname).")
@click.option("--beat-seconds", type=float, default=None, hidden=True, help="Seconds between heartbeats (tests).")
def sync_set(
    url: str,
    creds: str | None,
    user: str | None,
    password_file: str | None,
    token_file: str | None,
    tls_ca: str | None,
    host_name: str | None,
    beat_seconds: float | None,
) -> None:
    """Turn sync on: URL is the NATS server (several separated by commas, for a cluster)."""
    from lunavect import store
    from lunavect.collector import process as collector
    from lunavect.host.name import short_name
    from lunavect.sync import config, keys
    from lunavect.sync.connect import missing_extra

    problem = missing_extra()
    if problem is not None:
        raise Failure(problem)
    if sum(bool(x) for x in (creds, user, token_file)) > 1:
        raise click.UsageError("give one way to authenticate: --creds, --user with --password-file, or --token-file")
    if password_file and not user:
        raise click.UsageError("--password-file goes with --user")
    host = host_name or short_name()
    if not keys.valid_host(host):
        why = (
            f"the host name {host[:80]!r} must start with a letter or digit and hold only letters, digits, '-' "
            "and '_' (at most 64)"
        )
        # The name given is bad usage (exit 2); this machine's own name is a failure to say (exit 1).
        raise click.BadParameter(why, param_hint="'--host-name'") if host_name else Failure(why + ": give --host-name")
    servers = tuple(part.strip() for part in url.split(",") if part.strip())
    if not servers:
        raise click.BadParameter("give the NATS server's URL, e.g. nats://sync.example.net:4222", param_hint="URL")
    wanted = config.SyncConfig(
        servers=servers,
        host=host,
        creds=creds,
        user=user,
        password_file=password_file,
        token_file=token_file,
        tls_ca=tls_ca,
        beat_s=beat_seconds if beat_seconds and beat_seconds > 0 else config.BEAT_S,
    )
    from lunavect.sync import admin

    conn = open_store()
    with store.transaction(conn):
        machine = config.machine_id(conn)
    failure = admin.run(wanted, "check", machine)
    if failure is not None:
        raise Failure(failure)
    previous = config.load(conn)
    with store.transaction(conn):
        config.save(conn, wanted)
    if previous is not None and previous.host != wanted.host:
        # A renamed machine: the rows under its old name leave the other machines' lists.
        if collector.is_running():
            collector.wait_caught_up(conn)
        if admin.run(previous, "withdraw", machine) is not None:
            click.echo(f"note: the rows under {previous.host!r} stay on {', '.join(previous.servers)}")
    collector.ensure_running()
    collector.poke()
    click.echo(f"sync on: this machine is {host!r} at {', '.join(servers)}")
    if admin.anyone_may_write(wanted):
        from lunavect.sync.open_server import WARNING

        click.echo(f"warning: {WARNING}")


@sync_group.command("off")
def sync_off() -> None:
    """Turn sync off: this machine's sessions leave the other machines' lists."""
    from lunavect import store
    from lunavect.collector import process as collector
    from lunavect.sync import admin, config, remote

    conn = open_store()
    current = config.load(conn)
    if current is None:
        click.echo("sync is off")
        return
    with store.transaction(conn):
        config.clear(conn)
        machine = config.machine_id(conn)
    # The collector stops its client on its next tick; then this host's keys leave the bucket.
    if collector.is_running():
        collector.wait_caught_up(conn)
    remote.forget_all(conn)
    failure = admin.run(current, "withdraw", machine)
    if failure is not None:
        click.echo(f"sync off here; this machine's rows stay on the server ({failure})")
        return
    click.echo("sync off: this machine's sessions left the other machines' lists")


class HostStatus(msgspec.Struct):
    host: str
    sessions: int
    heard: str | None
    silent: bool


class Status(msgspec.Struct):
    on: bool
    host: str | None = None
    servers: list[str] = []
    auth: str | None = None
    connected_since: str | None = None
    not_current_since: str | None = None
    error: str | None = None
    notifying_host: str | None = None
    hosts: list[HostStatus] = []
    # Entries of other machines refused where they entered (a key or value that is not valid).
    refused: int = 0
    # Rows of other machines kept with fields cut to the bounds (docs, "Many machines").
    cut: int = 0
    # The server lets clients without credentials write this host's keys (`sync.open_server`).
    open_to_anyone: bool = False


def read_status() -> Status:
    from lunavect import store
    from lunavect.core.times import iso
    from lunavect.listing import hosts
    from lunavect.sync import config, remote

    conn = open_store()
    current = config.load(conn)
    if current is None:
        return Status(on=False)
    values = store.collector_values(conn)
    now = time.time()
    counts = dict(conn.execute("SELECT host, COUNT(*) FROM remote_session GROUP BY host").fetchall())
    auth = "creds" if current.creds else "user" if current.user else "token" if current.token_file else "none"
    connected = values.get(remote.CONNECTED_SINCE)
    return Status(
        on=True,
        host=current.host,
        servers=list(current.servers),
        auth=auth + (" + tls" if current.tls_ca else ""),
        connected_since=iso(float(connected)) if connected and values.get(remote.DISCONNECTED_SINCE) is None else None,
        not_current_since=iso(hosts.not_current_since(conn)),
        error=values.get(remote.ERROR),
        notifying_host=hosts.notifying_host(conn, now),
        refused=int(refused) if (refused := values.get(remote.REFUSED)) and refused.isdigit() else 0,
        cut=int(cut) if (cut := values.get(remote.CUT)) and cut.isdigit() else 0,
        open_to_anyone=values.get(remote.OPEN_SERVER) is not None,
        hosts=[
            HostStatus(name, counts.get(name, 0), iso(host.heard), host.silent(now))
            for name, host in sorted(hosts.hosts(conn).items())
        ],
    )


@sync_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sync_status(as_json: bool) -> None:
    """Say whether sync is on, whether other hosts are current, and what each was last heard saying."""
    status = read_status()
    if as_json:
        click.echo(msgspec.json.encode(status).decode())
        return
    if not status.on:
        click.echo("sync is off (turn it on with `lunavect sync set URL`)")
        return
    click.echo(f"host {status.host} at {', '.join(status.servers)} ({status.auth})")
    if status.not_current_since:
        click.echo(f"other hosts not current since {status.not_current_since}")
    elif status.connected_since:
        click.echo(f"connected since {status.connected_since}")
    if status.error:
        click.echo(f"last problem: {clean(status.error, 400)}")
    click.echo(f"notifications for other hosts' sessions: from {clean(status.notifying_host)}")
    if status.open_to_anyone:
        from lunavect.sync.open_server import WARNING

        click.echo(f"warning: {WARNING}")
    if status.refused:
        click.echo(f"ignored {status.refused} entries from other machines (not valid; the collector's log names them)")
    if status.cut:
        click.echo(f"cut {status.cut} rows from other machines to length (see docs/machines.md)")
    for host in status.hosts:
        word = "silent" if host.silent else "heard"
        click.echo(f"  {clean(host.host)}: {host.sessions} sessions, {word} {host.heard}")


COMMANDS: tuple[click.Command, ...] = (sync_group,)
