"""`lunavect doctor`: what can make the list wrong, and the one command that fixes each problem."""

from __future__ import annotations

import sys

import click
import msgspec

from lunavect.core.terminal_text import clean_lines


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor_command(as_json: bool) -> None:
    """Check hooks, events, catalogs, the collector, the store and set-aside files; exits 1 on a problem.

    This is the guide's "Settings → Connections": run it when the list looks wrong.

    \b
    Examples:
      lunavect doctor
      lunavect doctor --json | jq '.problems'
    """
    from lunavect.collector import doctor

    report = doctor.examine()
    try:
        from lunavect.frontends.web.connections import h11_problem
    except ImportError:  # no web extra: no web panel to serve
        pass
    else:
        if (problem := h11_problem()) is not None:
            report.fallbacks.append(problem)
    if as_json:
        click.echo(msgspec.json.encode(report.as_dict()).decode())
    else:
        click.echo(clean_lines("\n".join(doctor.lines(report))))
    sys.exit(1 if report.problems else 0)


COMMANDS: tuple[click.Command, ...] = (doctor_command,)
