// lunavect's Pi extension: written here by `lunavect hooks install`, removed by `lunavect hooks uninstall`.
//
// Pi runs no shell hooks; it loads every extension of its agent folder into its own process and awaits each
// handler. This forwards the events that carry a session's state to lunavect's spool, one line per event, as
// lunavect's hook shim writes them: names, ids and numbers only, never a prompt, reply, command, tool input or
// error message (an API error is forwarded as its HTTP status). Every handler returns at once and never throws:
// a failure drops the event, never the agent's work. Plain JavaScript (no types), so Pi's loader has nothing to
// strip.
//
// Each record is appended with one write(2) on a descriptor opened O_APPEND, so the lines of many Pi processes
// never interleave; it begins with the spool's mark `{"v":` and holds only ASCII, as every spool line.

import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readlinkSync, writeSync } from "node:fs"
import { randomBytes } from "node:crypto"

const SPOOL = __LUNAVECT_SPOOL__
const FORMAT = 1
const CLIENT = "pi"
const MAX_PATH = 4096
const MAX_TITLE = 300

const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
// What Pi's own words say when no answer came at all (Node's error codes, the SDKs' "Connection error.").
const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|Connection error|fetch failed/

function name(value) {
  return typeof value === "string" && NAME.test(value) ? value : undefined
}

function id(value) {
  return typeof value === "string" && ID.test(value) ? value : undefined
}

function text(value, limit) {
  return typeof value === "string" && value.length > 0 && value.length <= limit && !value.includes("\n")
    ? value
    : undefined
}

function parentOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

// A Pi started by another Pi (a sub-agent an extension runs, `pi -p` from a tool) is that session's work, never a
// session of its own: nothing is forwarded for it.
function underAnotherPi() {
  if (process.platform !== "linux") return false
  try {
    let pid = process.ppid
    for (let hops = 0; hops < 6 && pid > 1; hops++) {
      if (readFileSync(`/proc/${pid}/comm`, "latin1").trim() === "pi") return true
      pid = parentOf(pid)
    }
  } catch {}
  return false
}

// The process that runs the session: this one (Pi runs its extensions in its own process).
function processFacts() {
  const facts = { pid: process.pid }
  try {
    if (process.platform === "linux") {
      const stat = readFileSync("/proc/self/stat", "latin1")
      const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
      const boot = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "latin1"))[1])
      // Linux counts process starts in USER_HZ, 100 on every architecture it reports to user space.
      if (Number.isFinite(ticks) && Number.isFinite(boot)) facts.pstart = Math.round((boot + ticks / 100) * 100) / 100
      for (const fd of [0, 1, 2]) {
        const target = readlinkSync(`/proc/self/fd/${fd}`)
        if (target.startsWith("/dev/pts/") || (target.startsWith("/dev/tty") && target !== "/dev/tty")) {
          facts.tty = target
          break
        }
      }
    } else {
      facts.pstart = Math.round((Date.now() / 1000 - process.uptime()) * 100) / 100
    }
  } catch {}
  return facts
}

let processCache
let skipped

function spoolFolderIsPrivate(folder) {
  // Another user's folder, or one anyone may write, could swap the spool for a link: then nothing is written.
  const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  try {
    const st = fstatSync(fd)
    return st.uid === process.getuid() && (st.mode & 0o022) === 0
  } finally {
    closeSync(fd)
  }
}

function append(record) {
  const line = JSON.stringify({ v: FORMAT, id: randomBytes(12).toString("hex"), client: CLIENT, ...record })
  const ascii = line.replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))
  const data = Buffer.from(ascii + "\n", "latin1")
  const folder = SPOOL.slice(0, SPOOL.lastIndexOf("/"))
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  if (!spoolFolderIsPrivate(folder)) return
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK
  const fd = openSync(SPOOL, flags, 0o600)
  try {
    writeSync(fd, data, 0, data.length)
  } finally {
    closeSync(fd)
  }
}

function emit(ctx, event, fields) {
  skipped ??= underAnotherPi()
  if (skipped) return
  const session = id(ctx?.sessionManager?.getSessionId?.())
  if (!session) return
  processCache ??= processFacts()
  const record = { t: Date.now() / 1000, event, session, ...processCache }
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = value
  append(record)
}

// Where the session is and what it is called: its folder, its file (made with its first message), its name.
function place(ctx) {
  const manager = ctx?.sessionManager
  return {
    cwd: text(ctx?.cwd, MAX_PATH),
    transcript: text(manager?.getSessionFile?.(), MAX_PATH),
    title: text(manager?.getSessionName?.(), MAX_TITLE),
  }
}

// How the prompt ended: its last assistant message's stop reason, and for an error only its HTTP status (Pi
// writes `<status> <message>`) or that no answer came. The message itself is never read further.
function outcome(messages) {
  const list = Array.isArray(messages) ? messages : []
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i]
    if (message?.role !== "assistant") continue
    const reason = name(message.stopReason) ?? "unknown"
    if (reason !== "error") return { reason }
    const words = typeof message.errorMessage === "string" ? message.errorMessage.slice(0, 2000) : ""
    const status = /^(\d{3})\b/.exec(words)
    if (status) return { reason, error: "api_error", error_detail: status[1] }
    return { reason, error: "api_error", error_detail: UNREACHABLE.test(words) ? "ECONNREFUSED" : undefined }
  }
  return { reason: "unknown" }
}

function guarded(handler) {
  return (event, ctx) => {
    try {
      handler(event ?? {}, ctx)
    } catch {}
  }
}

export default function lunavect(pi) {
  pi.on("session_start", guarded((event, ctx) => emit(ctx, "session_start", { source: name(event.reason), ...place(ctx) })))
  pi.on("agent_start", guarded((_event, ctx) => emit(ctx, "agent_start", place(ctx))))
  pi.on(
    "tool_execution_start",
    guarded((event, ctx) => emit(ctx, "tool_execution_start", { tool: name(event.toolName), tool_use_id: id(event.toolCallId) })),
  )
  pi.on(
    "tool_execution_end",
    guarded((event, ctx) =>
      emit(ctx, "tool_execution_end", {
        tool: name(event.toolName),
        tool_use_id: id(event.toolCallId),
        reason: event.isError === true ? "error" : "ok",
      }),
    ),
  )
  pi.on("agent_end", guarded((event, ctx) => emit(ctx, "agent_end", { ...outcome(event.messages), ...place(ctx) })))
  pi.on("session_before_compact", guarded((_event, ctx) => emit(ctx, "session_before_compact", {})))
  pi.on("session_compact", guarded((_event, ctx) => emit(ctx, "session_compact", {})))
  pi.on("session_shutdown", guarded((event, ctx) => emit(ctx, "session_shutdown", { reason: name(event.reason) })))
}
