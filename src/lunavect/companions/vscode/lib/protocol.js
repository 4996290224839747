'use strict';
// The companion's requests and answers: one JSON object a line, both ways (docs/editor-companion-protocol.md).
//
// Everything a request holds comes from another process, so it is checked here once, where it enters: the
// operation by name, a process id as a positive integer in range, a session id by its pattern. What fails is
// answered with `bad-request` and never reaches the editor's API.

const PROTOCOL = 1;
// A request is a few dozen bytes; anything much longer is not one of ours.
const MAX_REQUEST_BYTES = 4096;
// Linux's largest pid (pid_max can be set up to 2^22); macOS's are smaller.
const MAX_PID = 4194304;
// Terminal names are labels a person or a program chose: cut, and stripped of control characters.
const MAX_NAME = 80;
// lunavect's own rule for a session id (lunavect/core/ids.py): a safe alphabet, never a path.
const SESSION_ID = /^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$/;
const PROVIDERS = new Set(['claude', 'codex']);
const OPS = new Set(['ping', 'list', 'show', 'panel']);

function isPid(value) {
  return Number.isInteger(value) && value > 1 && value <= MAX_PID;
}

function cleanName(value) {
  if (typeof value !== 'string') {
    return '';
  }
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').slice(0, MAX_NAME);
}

/** The request in `line`, or `{error}` saying why it is none. */
function parseRequest(line) {
  if (Buffer.byteLength(line, 'utf8') > MAX_REQUEST_BYTES) {
    return { error: 'request too long' };
  }
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return { error: 'not an object' };
  }
  const op = request.op;
  if (typeof op !== 'string' || !OPS.has(op)) {
    return { error: 'unknown op' };
  }
  if (op === 'show') {
    if (!isPid(request.pid)) {
      return { error: 'pid must be a process id' };
    }
    return { op, pid: request.pid };
  }
  if (op === 'panel') {
    if (typeof request.provider !== 'string' || !PROVIDERS.has(request.provider)) {
      return { error: 'provider must be claude or codex' };
    }
    if (typeof request.session !== 'string' || !SESSION_ID.test(request.session)) {
      return { error: 'session must be a session id' };
    }
    return { op, provider: request.provider, session: request.session };
  }
  return { op };
}

/** A terminal as the companion tells it: its shell's process id and its name, nothing of its text. */
function terminalEntry(pid, name) {
  return isPid(pid) ? { pid, name: cleanName(name) } : null;
}

function failure(error, message) {
  return { ok: false, protocol: PROTOCOL, error, message: cleanName(message || error) };
}

/**
 * Where a Claude Code session opens in Claude Code's own panel: the extension's documented URI handler
 * (`/open?session=<id>`, since its 2.1.72), in the scheme of this editor (`vscode`, `vscode-insiders`, ...).
 * Codex's extension documents no way to open a given conversation, so it has none.
 */
function panelUri(scheme, provider, session) {
  if (provider !== 'claude' || !SESSION_ID.test(session) || !/^[a-z][a-z0-9+.-]*$/.test(scheme)) {
    return null;
  }
  return `${scheme}://anthropic.claude-code/open?session=${encodeURIComponent(session)}`;
}

const PANEL_EXTENSIONS = { claude: 'anthropic.claude-code', codex: 'openai.chatgpt' };

module.exports = {
  PROTOCOL,
  MAX_REQUEST_BYTES,
  MAX_NAME,
  PANEL_EXTENSIONS,
  cleanName,
  failure,
  isPid,
  panelUri,
  parseRequest,
  terminalEntry,
};
