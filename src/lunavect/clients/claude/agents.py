"""Claude Code's background work as its transcript tells it: agents and shells, started and ended.

Each record yields small observations (a launch, a tool result, a resume, a notification); they are kept
on disk, not in memory, and joined only when asked (`finish`), so the answer is the same whatever order
the records arrive in, and memory does not grow with the transcript.

The rules, as the runtime writes its records:
- an `Agent` (or `Task`) call starts an agent when it asked `run_in_background` or its result is async;
  the result's structured `agentId` names it. A foreground agent ends with its own tool result.
- a `SendMessage` whose result names the agent it resumed (`resumedAgentId`) starts that agent again.
- a Bash result carrying `backgroundTaskId` started a background shell.
- a task notification ends the run its `<tool-use-id>` names (else the task's latest run before it), for
  every `<task-id>` it lists. Only the runtime's own notifications count: a user record stamped
  `origin.kind: task-notification` (or, from clients that predate the stamp, a prompt that is
  notifications and nothing else), a queued command of mode `task-notification`, or a queue entry that
  is notifications and nothing else and names by `<tool-use-id>` a run of the task it names. A
  notification quoted in a tool result or a person's message is text, not an ending.
- sidechain records (a subagent's own lines) are not the session's: the record reader drops them.
A task whose latest run has no ending is `running` as far as the transcript knows; whether its session
still runs is for the caller to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from lunavect.core.model import BackgroundTask
from lunavect.shim.notifications import ended_state

# Ended tasks kept in an answer: every running one is kept, and at most this many that ended.
SETTLED = 20


class Launch(msgspec.Struct, tag="launch", frozen=True):
    """An `Agent`/`Task` call. `place` is the record's byte offset, `seq` its place within the record."""

    place: int
    seq: int
    call: str
    agent_type: str | None
    background: bool
    at: float | None


class Send(msgspec.Struct, tag="send", frozen=True):
    """A `SendMessage` call, which may resume an agent."""

    place: int
    seq: int
    call: str


class Result(msgspec.Struct, tag="result", frozen=True):
    """A tool result naming an agent: the one it launched, or the one it resumed."""

    place: int
    seq: int
    call: str
    agent_id: str | None
    resumed: str | None
    is_async: bool
    error: bool
    at: float | None


class ShellLaunch(msgspec.Struct, tag="bash", frozen=True):
    """A Bash call asked to run in the background; `service` is the verdict on its command (a dev server
    never ends, so it never holds a finished reply)."""

    place: int
    seq: int
    call: str
    service: bool


class ShellResult(msgspec.Struct, tag="shell", frozen=True):
    """A Bash result that moved its command into the background under `task_id`."""

    place: int
    seq: int
    call: str
    task_id: str
    error: bool
    at: float | None


class Note(msgspec.Struct, tag="note", frozen=True):
    """A task notification; `stamped` when the runtime's own stamp (or form) proves it is the runtime's."""

    place: int
    seq: int
    task_ids: tuple[str, ...]
    tool_use_id: str | None
    status: str | None
    stamped: bool
    at: float | None


Observation = Launch | Send | Result | ShellLaunch | ShellResult | Note

observation_encoder = msgspec.json.Encoder()
observation_decoder = msgspec.json.Decoder(Observation)


class TranscriptTask(msgspec.Struct, frozen=True):
    """One agent or shell of a session, as its transcript says it (ids, kinds, times: never its words).

    The transcript's full account of the task; the rules see only what `running_background` keeps of it
    (`core.model.BackgroundTask`: a kind, an id, whether it is a long-lived service).
    """

    id: str
    kind: str  # "agent" or "shell"
    tool_use_id: str
    state: str  # running | completed | failed | stopped
    background: bool = True
    agent_type: str | None = None
    service: bool = False
    launched_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None


@dataclass
class _Run:
    call: str
    place: tuple[int, int]
    started_at: float | None
    outcome: str | None = None
    finished_at: float | None = None


@dataclass
class _Task:
    id: str
    kind: str
    tool_use_id: str
    background: bool
    agent_type: str | None = None
    service: bool = False
    launched_at: float | None = None
    runs: list[_Run] = field(default_factory=list)


_Observed = TypeVar("_Observed", "Launch", "Result", "Send", "ShellLaunch", "ShellResult")


def _latest(entries: dict[str, _Observed], key: str, entry: _Observed) -> None:
    """Keep, for each call, the observation furthest into the file: the same whatever the arrival order."""
    known = entries.get(key)
    if known is None or (entry.place, entry.seq) > (known.place, known.seq):
        entries[key] = entry


def finish(observations: list[Observation], settled: int = SETTLED) -> list[TranscriptTask]:
    """The session's tasks, latest-started first: every running one, then at most `settled` that ended.

    Five steps, each the same whatever order the observations arrived in: keep each call's latest observation
    (`_seen`), start the agents their launches' results name (`_start_agents`), run again the agents a
    message resumed (`_resume_agents`), start the background shells (`_start_shells`), then end the runs the
    task notifications name (`_end_runs`); the answer is each task's latest run (`_answer`)."""
    seen = _seen(observations)
    ledger = _Ledger()
    _start_agents(seen, ledger)
    _resume_agents(seen, ledger)
    _start_shells(seen, ledger)
    for task in ledger.tasks.values():
        task.runs.sort(key=lambda run: run.place)
    _end_runs(seen.notes, ledger)
    return _answer(ledger.tasks, settled)


@dataclass
class _Seen:
    """The observations by kind: for each call the one furthest into the file, and every notification."""

    launches: dict[str, Launch] = field(default_factory=dict)
    results: dict[str, Result] = field(default_factory=dict)
    sends: dict[str, Send] = field(default_factory=dict)
    bash: dict[str, ShellLaunch] = field(default_factory=dict)
    shells: dict[str, ShellResult] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)


def _seen(observations: list[Observation]) -> _Seen:
    seen = _Seen()
    for entry in observations:
        if isinstance(entry, Launch):
            _latest(seen.launches, entry.call, entry)
        elif isinstance(entry, Result):
            _latest(seen.results, entry.call, entry)
        elif isinstance(entry, Send):
            _latest(seen.sends, entry.call, entry)
        elif isinstance(entry, ShellLaunch):
            _latest(seen.bash, entry.call, entry)
        elif isinstance(entry, ShellResult):
            _latest(seen.shells, entry.call, entry)
        elif isinstance(entry, Note):
            seen.notes.append(entry)
    return seen


@dataclass
class _Ledger:
    """The tasks found so far, and each run by the call that started it (what a notification names)."""

    tasks: dict[str, _Task] = field(default_factory=dict)
    runs: dict[str, tuple[_Task, _Run]] = field(default_factory=dict)

    def start(self, task_id: str, kind: str, call: str, run: _Run, **details: Any) -> None:
        """A run of the task `task_id`, which its first run creates."""
        task = self.tasks.get(task_id)
        if task is None:
            task = self.tasks[task_id] = _Task(
                id=task_id, kind=kind, tool_use_id=call, launched_at=run.started_at, **details
            )
        self.again(task, call, run)

    def again(self, task: _Task, call: str, run: _Run) -> None:
        task.runs.append(run)
        self.runs[call] = (task, run)


def _start_agents(seen: _Seen, ledger: _Ledger) -> None:
    """Each launch whose result names its agent starts a run of that agent: in the order the results stand in
    the file, so that the first launch of an agent names it. A foreground agent's own result ends its run."""
    results = seen.results
    for call, launch in sorted(seen.launches.items(), key=lambda item: _place_of(results.get(item[0]))):
        result = results.get(call)
        if result is None or result.error or result.agent_id is None:
            continue
        background = launch.background or result.is_async
        run = _Run(call, (result.place, result.seq), launch.at if launch.at is not None else result.at)
        if not background:
            # A foreground agent is part of its turn; its own result ends it.
            run.outcome, run.finished_at = "completed", result.at
        ledger.start(result.agent_id, "agent", call, run, background=background, agent_type=launch.agent_type)


def _resume_agents(seen: _Seen, ledger: _Ledger) -> None:
    """A message whose result names the agent it resumed starts another run of that (known) agent."""
    for call in seen.sends:
        result = seen.results.get(call)
        if result is None or result.error or result.resumed is None:
            continue
        task = ledger.tasks.get(result.resumed)
        if task is None or task.kind != "agent":
            continue
        ledger.again(task, call, _Run(call, (result.place, result.seq), result.at))


def _start_shells(seen: _Seen, ledger: _Ledger) -> None:
    """A Bash result that moved its command into the background starts that shell; its launch says whether
    the command is a long-lived service."""
    for call, shell in seen.shells.items():
        if shell.error:
            continue
        shell_launch = seen.bash.get(call)
        run = _Run(call, (shell.place, shell.seq), shell.at)
        service = shell_launch is not None and shell_launch.service
        ledger.start(shell.task_id, "shell", call, run, background=True, service=service)


def _end_runs(notes: list[Note], ledger: _Ledger) -> None:
    """Each task notification, in file order, ends the run its `<tool-use-id>` names, else (only when the
    runtime's own stamp proves it is the runtime's) the task's latest run before it; the first ending wins."""
    for note in sorted(notes, key=lambda n: (n.place, n.seq)):
        named = ledger.runs.get(note.tool_use_id) if note.tool_use_id is not None else None
        for task_id in note.task_ids:
            task = ledger.tasks.get(task_id)
            if task is None:
                continue
            if named is not None and named[0] is task:
                run = named[1]
            elif not note.stamped:
                continue  # an unstamped queue entry counts only for a run of this task it names
            else:
                earlier = [r for r in task.runs if r.place < (note.place, note.seq)]
                run = earlier[-1] if earlier else task.runs[-1]
            if run.outcome is not None:
                continue  # the first notice ends a run; the same notice written again changes nothing
            run.outcome, run.finished_at = ended_state(note.status), note.at


def _answer(tasks: dict[str, _Task], settled: int) -> list[TranscriptTask]:
    """Each task as its latest run says it, latest-started first: every running one, then `settled` ended."""
    answer = []
    for task in tasks.values():
        latest = task.runs[-1]
        answer.append(
            (
                latest.place,
                TranscriptTask(
                    id=task.id,
                    kind=task.kind,
                    tool_use_id=task.tool_use_id,
                    state=latest.outcome or "running",
                    background=task.background,
                    agent_type=task.agent_type,
                    service=task.service,
                    launched_at=task.launched_at,
                    started_at=latest.started_at,
                    finished_at=latest.finished_at,
                ),
            )
        )
    answer.sort(key=lambda item: item[0], reverse=True)
    running = [task for _, task in answer if task.state == "running"]
    ended = [task for _, task in answer if task.state != "running"][:settled]
    return running + ended


def _place_of(entry: Result | None) -> tuple[int, int]:
    return (entry.place, entry.seq) if entry is not None else (1 << 62, 0)


def running_background(tasks: list[TranscriptTask]) -> tuple[BackgroundTask, ...]:
    """The running background work, as the rules see it: kinds and ids only."""
    return tuple(
        BackgroundTask(kind=task.kind, id=task.id, status="running", service=task.service)
        for task in tasks
        if task.state == "running" and task.background
    )
