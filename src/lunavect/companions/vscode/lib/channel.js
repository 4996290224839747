'use strict';
// The private local channel between one editor window and lunavect: in lunavect's data folder, a folder
// `editors` only its owner can enter, and in it, per window, `<id>.json` (what the window holds: its
// terminals' shell process ids and names, mode 0600) and `<id>.sock` (a unix socket answering one request
// a line, mode 0600). Both are removed when the window closes. Plain Node: no editor API here, so the
// channel is tested on its own (test/channel.test.js).
//
// A terminal can outlive its window (code-server keeps a closed tab's shells for their reconnection, and so
// does VS Code with persistent terminals), so a closing window leaves `<id>.closed`: the process ids of
// the terminals it had, and when it closed, so that lunavect says "the window closed" rather than "no
// companion". The companion removes those older than a week when a window opens.

const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const protocol = require('./protocol');

// A socket's path must fit sockaddr_un (108 bytes on Linux, 104 on macOS, with the final NUL).
const MAX_SOCKET_PATH = 103;
// A client that connects and says nothing is cut off after this long.
const IDLE_MS = 5000;
const CLOSED_KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * lunavect's channel folder: the one the installing lunavect wrote into this copy of the companion
 * (`lunavect.json` beside extension.js), else $LUNAVECT_HOME/editors, else the platform's data folder, as
 * lunavect itself derives it.
 */
function channelFolder(extensionDir, env, platform = process.platform) {
  try {
    const baked = JSON.parse(fs.readFileSync(path.join(extensionDir, 'lunavect.json'), 'utf8'));
    if (baked && typeof baked.channel === 'string' && path.isAbsolute(baked.channel)) {
      return baked.channel;
    }
  } catch {
    // not installed by lunavect (a development copy): derive it
  }
  if (env.LUNAVECT_HOME && path.isAbsolute(env.LUNAVECT_HOME)) {
    return path.join(env.LUNAVECT_HOME, 'editors');
  }
  const home = env.HOME || os.homedir();
  if (platform === 'darwin') {
    return path.join(home, 'Library', 'Application Support', 'lunavect', 'editors');
  }
  const xdg = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(home, '.local', 'share');
  return path.join(xdg, 'lunavect', 'editors');
}

/** Make the folder (mode 0700) and refuse one that is a link, another user's, or writable by others. */
function privateFolder(folder) {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(folder);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new Error(`${folder} is not a folder of its own`);
  }
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`${folder} belongs to another user`);
  }
  if (st.mode & 0o022) {
    throw new Error(`${folder} can be written by others (chmod 700 it)`);
  }
  return folder;
}

/** Replace `file` with `text` whole (a reader never sees half of it), mode 0600. */
function writePrivate(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'w' });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

function pruneClosed(folder, now = Date.now()) {
  let names = [];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^[0-9a-f]{12}\.closed$/.test(name)) {
      continue;
    }
    try {
      if (now - fs.statSync(path.join(folder, name)).mtimeMs > CLOSED_KEPT_MS) {
        fs.unlinkSync(path.join(folder, name));
      }
    } catch {
      // gone already
    }
  }
}

function removeQuietly(file) {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * Serve one window: `handle(request)` answers each checked request, `describe()` says what the window
 * holds. Returns {id, socketPath, registrationPath, publish(), close()}; `publish()` rewrites the
 * registration (on every terminal change), `close()` removes both files.
 */
async function open(folder, { handle, describe, id = crypto.randomBytes(6).toString('hex') }) {
  privateFolder(folder);
  pruneClosed(folder);
  const socketPath = path.join(folder, `${id}.sock`);
  const registrationPath = path.join(folder, `${id}.json`);
  const closedPath = path.join(folder, `${id}.closed`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new Error(`the socket path ${socketPath} is longer than a unix socket allows`);
  }
  const started = Date.now();
  const server = net.createServer((connection) => serveOne(connection, handle));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  let closed = false;
  let pending = Promise.resolve();
  let last = null;

  async function publish() {
    // One write at a time, in order: the last one written is the newest state.
    pending = pending.then(async () => {
      if (closed) {
        return;
      }
      const described = await describe();
      const registration = {
        protocol: protocol.PROTOCOL,
        id,
        socket: path.basename(socketPath),
        host_pid: process.pid,
        editor_pid: process.ppid,
        started,
        updated: Date.now(),
        ...described,
      };
      if (!closed) {
        writePrivate(registrationPath, JSON.stringify(registration));
        last = registration;
      }
    }).catch(() => {});
    return pending;
  }

  function close() {
    if (closed) {
      return;
    }
    closed = true;
    server.close();
    if (last && last.terminals && last.terminals.length) {
      try {
        const record = { protocol: protocol.PROTOCOL, id, app: last.app, editor_pid: last.editor_pid, closed: Date.now(), terminals: last.terminals };
        writePrivate(closedPath, JSON.stringify(record));
      } catch {
        // the folder is gone: nothing to tell
      }
    }
    removeQuietly(registrationPath);
    removeQuietly(socketPath);
  }

  await publish();
  return { id, socketPath, registrationPath, closedPath, publish, close };
}

function serveOne(connection, handle) {
  let buffered = '';
  let answered = false;
  connection.setEncoding('utf8');
  connection.setTimeout(IDLE_MS, () => connection.destroy());
  connection.on('error', () => {});
  connection.on('data', async (chunk) => {
    if (answered) {
      return;
    }
    buffered += chunk;
    const newline = buffered.indexOf('\n');
    if (newline < 0 && buffered.length <= protocol.MAX_REQUEST_BYTES) {
      return;
    }
    answered = true;
    const line = newline < 0 ? buffered : buffered.slice(0, newline);
    const request = protocol.parseRequest(line);
    let answer;
    if (request.error) {
      answer = protocol.failure('bad-request', request.error);
    } else {
      try {
        answer = await handle(request);
      } catch (error) {
        answer = protocol.failure('failed', String((error && error.message) || error));
      }
    }
    connection.end(`${JSON.stringify(answer)}\n`);
  });
}

module.exports = { MAX_SOCKET_PATH, channelFolder, open, privateFolder, pruneClosed, writePrivate };
