// lunavect's OpenCode plugin: written here by `lunavect hooks install`, removed by `lunavect hooks uninstall`.
//
// OpenCode runs no shell hooks; it loads this file into its server and hands every bus event of the session to
// `event`, without waiting for it. This forwards the events that carry a session's state to lunavect's spool,
// one line per event, as lunavect's hook shim writes them: names, ids and numbers only, never a prompt, reply,
// command, question or tool text. Nothing here throws or waits: a failure drops the event, never the agent's work.
//
// Each record is appended with one write(2) on a descriptor opened O_APPEND, so the lines of many OpenCode
// processes never interleave; it begins with the spool's mark `{"v":` and holds only ASCII, as every spool line.

import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readlinkSync, writeSync } from "node:fs"
import { randomBytes } from "node:crypto"

const SPOOL = __LUNAVECT_SPOOL__
const FORMAT = 1
const CLIENT = "opencode"
const MAX_ID = 200
const MAX_PATH = 4096
const MAX_TITLE = 300
// Remembered per session and per call, so that only changes are forwarded: bounded, oldest forgotten first.
const MAX_REMEMBERED = 2000

const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

function name(value) {
  return typeof value === "string" && NAME.test(value) ? value : undefined
}

function id(value) {
  return typeof value === "string" && value.length <= MAX_ID && ID.test(value) ? value : undefined
}

function text(value, limit) {
  return typeof value === "string" && value.length > 0 && value.length <= limit ? value : undefined
}

class Remembered extends Map {
  set(key, value) {
    if (!this.has(key) && this.size >= MAX_REMEMBERED) this.delete(this.keys().next().value)
    return super.set(key, value)
  }
}

const roots = new Remembered() // a child session's id -> its root session's id
const statuses = new Remembered() // session id -> busy | retry | idle (attempt for a retry)
const calls = new Remembered() // call id -> the tool's name and the last status forwarded
const asked = new Remembered() // permission request id -> { tool, call }
const titles = new Remembered() // root session id -> the title last forwarded
const compacting = new Set() // sessions whose running turn is a compaction
const finished = new Remembered() // assistant message ids whose end was forwarded

// The process that runs the session: this one (OpenCode's server is a thread of its TUI process).
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

function rootOf(session) {
  let current = session
  for (let hops = 0; hops < 16 && roots.has(current); hops++) current = roots.get(current)
  return current
}

function emit(session, event, fields) {
  const sid = id(session)
  if (!sid) return
  const root = rootOf(sid)
  processCache ??= processFacts()
  const record = { t: Date.now() / 1000, event, session: root, ...processCache }
  if (root !== sid) record.agent_id = sid
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = value
  append(record)
}

// OpenCode's retries say why only in words: its own, for a rate limit or an overloaded provider, or the provider's.
function retryReason(status) {
  const action = name(status.action?.reason)
  if (action === "account_rate_limit" || action === "free_tier_limit") return "rate_limit"
  if (status.message === "Too Many Requests") return "rate_limit"
  if (status.message === "Provider is overloaded") return "overloaded"
  return "unknown"
}

function status(session, type, properties) {
  if (!type) return
  const previous = statuses.get(session) ?? "idle"
  const current = type === "retry" ? `retry:${properties.status?.attempt}` : type
  if (current === previous) return
  statuses.set(session, current)
  const was = previous.startsWith("retry") ? "retry" : previous
  if (type === "busy" && was === "idle" && compacting.has(session)) return // the compaction's own turn
  if (type === "idle") compacting.delete(session)
  const fields = { reason: type, source: was }
  if (type === "retry") fields.error = retryReason(properties.status ?? {})
  emit(session, "session.status", fields)
}

function sessionInfo(event, info) {
  const session = id(info?.id)
  if (!session) return
  const parent = id(info.parentID)
  if (parent) roots.set(session, parent)
  if (event === "session.created") {
    emit(session, event, { cwd: text(info.directory, MAX_PATH), title: parent ? undefined : text(info.title, MAX_TITLE) })
    return
  }
  const title = text(info.title, MAX_TITLE)
  if (parent || !title || titles.get(session) === title) return
  titles.set(session, title)
  emit(session, event, { title, cwd: text(info.directory, MAX_PATH) })
}

function part(session, part) {
  if (part?.type === "compaction") {
    compacting.add(session)
    emit(session, "message.part.updated", { reason: "compaction", trigger: part.auto ? "auto" : "manual" })
    return
  }
  const call = id(part?.callID)
  const state = name(part?.state?.status)
  if (part?.type !== "tool" || !call || !state) return
  const known = calls.get(call)
  const tool = name(part.tool)
  // A call is forwarded when first seen (pending or running) and when it ends; running again after a prompt
  // is no news.
  const first = !known && (state === "pending" || state === "running")
  const ended = (state === "completed" || state === "error") && known?.status !== "ended"
  if (!first && !ended) return
  calls.set(call, { tool, status: ended ? "ended" : "started" })
  emit(session, "message.part.updated", { reason: ended ? state : "running", tool, tool_use_id: call })
}

function message(session, info) {
  // The end of a reply: an assistant message completed without an error, which is not the loop's tool step
  // nor a compaction's summary. Errors and interruptions come as `session.error`.
  const message = id(info?.id)
  if (info?.role !== "assistant" || !message || !info.time?.completed || info.error || info.summary) return
  const finish = name(info.finish) ?? "unknown"
  if (finish === "tool-calls" || finished.has(message)) return
  finished.set(message, true)
  emit(session, "message.updated", { reason: finish, turn_id: message })
}

function permission(session, event, properties) {
  const request = id(properties.id ?? properties.requestID)
  if (event.endsWith(".asked")) {
    const call = id(properties.tool?.callID ?? properties.source?.callID)
    const tool = (call && calls.get(call)?.tool) ?? name(properties.permission ?? properties.action)
    if (request) asked.set(request, { tool, call })
    emit(session, "permission.asked", { tool, tool_use_id: call, turn_id: request })
    return
  }
  const prompt = (request && asked.get(request)) || {}
  const reply = name(properties.reply)
  emit(session, "permission.replied", { reason: reply, tool: prompt.tool, tool_use_id: prompt.call, turn_id: request })
}

function question(session, event, properties) {
  const kind = event.replace(".v2.", ".")
  emit(session, kind, { tool_use_id: id(properties.tool?.callID), turn_id: id(properties.id ?? properties.requestID) })
}

function sessionError(session, error) {
  const code = error?.data?.statusCode
  emit(session, "session.error", {
    error: name(error?.name) ?? "UnknownError",
    error_detail: Number.isInteger(code) && code >= 100 && code < 600 ? String(code) : undefined,
  })
}

function forward(event) {
  const type = event?.type
  const properties = event?.properties ?? {}
  if (typeof type !== "string") return
  if (type === "session.created" || type === "session.updated") return sessionInfo(type, properties.info)
  const session = id(properties.sessionID ?? properties.info?.sessionID ?? properties.part?.sessionID)
  if (!session) return
  switch (type) {
    case "session.status":
      return status(session, name(properties.status?.type), properties)
    case "session.idle":
      return status(session, "idle", properties)
    case "message.part.updated":
      return part(session, properties.part)
    case "message.updated":
      return message(session, properties.info)
    case "permission.asked":
    case "permission.replied":
    case "permission.v2.asked":
    case "permission.v2.replied":
      return permission(session, type, properties)
    case "question.asked":
    case "question.replied":
    case "question.rejected":
    case "question.v2.asked":
    case "question.v2.replied":
    case "question.v2.rejected":
      return question(session, type, properties)
    case "session.error":
      return sessionError(session, properties.error)
    case "session.compacted":
      compacting.delete(session)
      return emit(session, type, {})
  }
}

export const LunavectPlugin = async () => ({
  event: ({ event }) => {
    try {
      forward(event)
    } catch {}
  },
})
