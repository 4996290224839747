'use strict';
// The channel on its own: the private folder, the registration and its socket (mode 0600), one answer a
// request, the files gone (and the closed window's record left) when the window closes (node --test).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');

const channel = require('../../../src/lunavect/companions/vscode/lib/channel');

function scratch() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lvc-'));
}

function request(socketPath, line) {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socketPath, () => conn.write(line));
    let got = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk) => (got += chunk));
    conn.on('end', () => resolve(got));
    conn.on('error', reject);
  });
}

const terminals = [{ pid: 4242, name: 'bash' }];

test('a window registers privately, answers one request a line and leaves a closed record', async () => {
  const folder = path.join(scratch(), 'lunavect', 'editors');
  const seen = [];
  const served = await channel.open(folder, {
    id: 'abcdef012345',
    describe: async () => ({ app: 'code-server', terminals }),
    handle: async (req) => {
      seen.push(req);
      return { ok: true, shown: { pid: req.pid } };
    },
  });
  assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
  assert.equal(fs.statSync(served.socketPath).mode & 0o777, 0o600);
  assert.equal(fs.statSync(served.registrationPath).mode & 0o777, 0o600);
  const registration = JSON.parse(fs.readFileSync(served.registrationPath, 'utf8'));
  assert.equal(registration.id, 'abcdef012345');
  assert.equal(registration.socket, 'abcdef012345.sock');
  assert.equal(registration.host_pid, process.pid);
  assert.deepEqual(registration.terminals, terminals);

  assert.deepEqual(JSON.parse(await request(served.socketPath, '{"op":"show","pid":4242}\n')), { ok: true, shown: { pid: 4242 } });
  const refused = JSON.parse(await request(served.socketPath, '{"op":"show","pid":"4242"}\n'));
  assert.equal(refused.ok, false);
  assert.equal(refused.error, 'bad-request');
  assert.deepEqual(seen, [{ op: 'show', pid: 4242 }]); // the refused one never reached the handler

  served.close();
  assert.equal(fs.existsSync(served.socketPath), false);
  assert.equal(fs.existsSync(served.registrationPath), false);
  const closed = JSON.parse(fs.readFileSync(served.closedPath, 'utf8'));
  assert.deepEqual(closed.terminals, terminals);
  assert.equal(fs.statSync(served.closedPath).mode & 0o777, 0o600);
});

test('a handler that throws is answered as failed, and the server goes on', async () => {
  const folder = path.join(scratch(), 'editors');
  const served = await channel.open(folder, {
    describe: async () => ({ terminals: [] }),
    handle: async () => {
      throw new Error('boom');
    },
  });
  for (let i = 0; i < 2; i += 1) {
    const answer = JSON.parse(await request(served.socketPath, '{"op":"ping"}\n'));
    assert.deepEqual([answer.ok, answer.error, answer.message], [false, 'failed', 'boom']);
  }
  served.close();
  assert.equal(fs.existsSync(served.closedPath), false); // no terminals: nothing outlives the window
});

test('a folder others can write, or a link, is refused', () => {
  const base = scratch();
  const open = path.join(base, 'open');
  fs.mkdirSync(open, { mode: 0o777 });
  fs.chmodSync(open, 0o777);
  assert.throws(() => channel.privateFolder(open), /written by others/);
  const link = path.join(base, 'link');
  fs.symlinkSync(open, link);
  assert.throws(() => channel.privateFolder(link), /not a folder of its own/);
});

test('old closed records are pruned, recent ones and other files kept', () => {
  const folder = scratch();
  const old = path.join(folder, '0123456789ab.closed');
  const recent = path.join(folder, 'ba9876543210.closed');
  const other = path.join(folder, 'notes.closed');
  for (const file of [old, recent, other]) {
    fs.writeFileSync(file, '{}');
  }
  const weekAgo = (Date.now() - 8 * 24 * 3600 * 1000) / 1000;
  fs.utimesSync(old, weekAgo, weekAgo);
  fs.utimesSync(other, weekAgo, weekAgo);
  channel.pruneClosed(folder);
  assert.deepEqual([fs.existsSync(old), fs.existsSync(recent), fs.existsSync(other)], [false, true, true]);
});

test('the channel folder is the one baked in by the installing lunavect, else derived like lunavect', () => {
  const dir = scratch();
  assert.equal(channel.channelFolder(dir, { LUNAVECT_HOME: '/l' }), '/l/editors');
  assert.equal(channel.channelFolder(dir, { HOME: '/h' }, 'linux'), '/h/.local/share/lunavect/editors');
  assert.equal(channel.channelFolder(dir, { HOME: '/h', XDG_DATA_HOME: '/x' }, 'linux'), '/x/lunavect/editors');
  assert.equal(channel.channelFolder(dir, { HOME: '/h' }, 'darwin'), '/h/Library/Application Support/lunavect/editors');
  fs.writeFileSync(path.join(dir, 'lunavect.json'), JSON.stringify({ channel: '/baked/editors' }));
  assert.equal(channel.channelFolder(dir, { LUNAVECT_HOME: '/l' }), '/baked/editors');
});
