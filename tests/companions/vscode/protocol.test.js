'use strict';
// The companion's checks on what another process sends, and the links it builds (node --test).
const assert = require('node:assert/strict');
const test = require('node:test');

const protocol = require('../../../src/lunavect/companions/vscode/lib/protocol');

test('a show request names a process id, and nothing else passes', () => {
  assert.deepEqual(protocol.parseRequest('{"op":"show","pid":4242}'), { op: 'show', pid: 4242 });
  for (const pid of [0, 1, -5, 4.5, '4242', null, 2 ** 40, true]) {
    assert.ok(protocol.parseRequest(JSON.stringify({ op: 'show', pid })).error, `pid ${pid}`);
  }
});

test('unknown operations, non-objects, broken JSON and long lines are refused', () => {
  for (const line of ['{"op":"exec","cmd":"rm"}', '[]', 'null', '"show"', '{"op":', '{}']) {
    assert.ok(protocol.parseRequest(line).error, line);
  }
  const long = JSON.stringify({ op: 'ping', pad: 'x'.repeat(protocol.MAX_REQUEST_BYTES) });
  assert.equal(protocol.parseRequest(long).error, 'request too long');
  assert.deepEqual(protocol.parseRequest('{"op":"ping","extra":1}'), { op: 'ping' });
});

test('a panel request names a provider and a session id of the safe alphabet', () => {
  const id = '5f0c2a9e-3b1d-4c8e-9a7f-2d6b8e1c4a30';
  assert.deepEqual(protocol.parseRequest(JSON.stringify({ op: 'panel', provider: 'claude', session: id })), {
    op: 'panel',
    provider: 'claude',
    session: id,
  });
  for (const session of ['../etc', 'a b', '', 'x'.repeat(129), '-lead', 5]) {
    assert.ok(protocol.parseRequest(JSON.stringify({ op: 'panel', provider: 'claude', session })).error, String(session));
  }
  assert.ok(protocol.parseRequest(JSON.stringify({ op: 'panel', provider: 'gemini', session: id })).error);
});

test("Claude Code's panel link is its documented URI in the editor's scheme; Codex has none", () => {
  const id = '5f0c2a9e-3b1d-4c8e-9a7f-2d6b8e1c4a30';
  assert.equal(protocol.panelUri('vscode', 'claude', id), `vscode://anthropic.claude-code/open?session=${id}`);
  assert.equal(protocol.panelUri('vscode-insiders', 'claude', id), `vscode-insiders://anthropic.claude-code/open?session=${id}`);
  assert.equal(protocol.panelUri('vscode', 'codex', id), null);
  assert.equal(protocol.panelUri('javascript:alert(1)//', 'claude', id), null);
  assert.equal(protocol.panelUri('vscode', 'claude', 'a&b=c'), null);
});

test('terminal names are cut and lose their control characters; a terminal without a pid is left out', () => {
  assert.deepEqual(protocol.terminalEntry(321, 'claude\u001b]0;x\u0007'), { pid: 321, name: 'claude ]0;x ' });
  assert.equal(protocol.terminalEntry(321, 'n'.repeat(500)).name.length, protocol.MAX_NAME);
  assert.equal(protocol.terminalEntry(undefined, 'bash'), null);
  assert.equal(protocol.terminalEntry(321, 7).name, '');
});
