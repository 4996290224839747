'use strict';
// lunavect's companion in one VS Code window: it tells lunavect which integrated terminals the window holds
// (each one's shell process id and name, never its text) and, when lunavect asks, shows exactly the
// terminal it names. lunavect decides which terminal holds a session (the agent's parent processes); the
// companion only shows one of its own terminals, or says why it cannot.

const vscode = require('vscode');

const channel = require('./lib/channel');
const protocol = require('./lib/protocol');

// How long a request waits for the window to act (terminal.show() and the active terminal it changes are
// asynchronous; a browser tab that is gone never answers).
const SHOW_WAIT_MS = 3000;
// A terminal's process id resolves once its shell started; an extension's pseudo-terminal has none.
const PID_WAIT_MS = 1000;
const SELF_ID = 'lunavect.lunavect-companion';

let served = null;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout(thenable, ms, fallback) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    Promise.resolve(thenable).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

function pidOf(terminal) {
  return withTimeout(terminal.processId, PID_WAIT_MS, undefined);
}

async function entryOf(terminal) {
  return terminal ? protocol.terminalEntry(await pidOf(terminal), terminal.name) : null;
}

async function terminalEntries() {
  const entries = [];
  for (const terminal of vscode.window.terminals) {
    const entry = await entryOf(terminal);
    if (entry) {
      entries.push(entry);
    }
  }
  return entries;
}

async function terminalOf(pid) {
  for (const terminal of vscode.window.terminals) {
    if ((await pidOf(terminal)) === pid) {
      return terminal;
    }
  }
  return null;
}

function isDesktop() {
  return vscode.env.uiKind === vscode.UIKind.Desktop;
}

/** Proof that a window is connected: a command only the window itself (not the extension host) runs. */
function windowAnswers() {
  return withTimeout(
    vscode.commands.executeCommand('setContext', 'lunavect.companion.asked', Date.now()).then(() => true),
    SHOW_WAIT_MS,
    false,
  );
}

/**
 * Bring this window in front of the others. VS Code has no API for it; a URI of the editor's own scheme
 * made by asExternalUri names this window, and VS Code focuses the window that handles it. A browser tab
 * (code-server, vscode.dev) cannot be raised from the editor: there the tab is only shown.
 */
async function raise() {
  if (!isDesktop()) {
    return false;
  }
  const own = vscode.Uri.parse(`${vscode.env.uriScheme}://${SELF_ID}/raise`);
  return (await withTimeout(openOwnLink(own), SHOW_WAIT_MS, false)) === true;
}

/**
 * Open a link of the editor's own scheme in this window, where the extension it names handles it. On a
 * desktop, asExternalUri adds this window's id, so VS Code routes the link here and focuses the window; in
 * a browser, that would open a new tab, while the workbench's own opener hands the link to the extension
 * in this page.
 */
async function openOwnLink(uri) {
  if (!isDesktop()) {
    await vscode.commands.executeCommand('vscode.open', uri);
    return true;
  }
  const external = await vscode.env.asExternalUri(uri);
  return vscode.env.openExternal(external);
}

async function show(pid) {
  const terminal = await terminalOf(pid);
  if (!terminal) {
    return protocol.failure('terminal-gone', `no terminal of this window runs process ${pid}`);
  }
  terminal.show(false);
  if (!(await windowAnswers())) {
    return protocol.failure('window-unreachable', 'the editor window did not answer: it is closed, or its browser tab is gone');
  }
  const deadline = Date.now() + SHOW_WAIT_MS;
  while (vscode.window.activeTerminal !== terminal && Date.now() < deadline) {
    await sleep(50);
  }
  if (vscode.window.activeTerminal !== terminal) {
    return protocol.failure('not-shown', 'the window did not make the terminal the active one');
  }
  const raised = await raise();
  return { ok: true, protocol: protocol.PROTOCOL, shown: await entryOf(terminal), active: await entryOf(vscode.window.activeTerminal), raised };
}

async function panel(provider, session) {
  const extensionId = protocol.PANEL_EXTENSIONS[provider];
  if (!vscode.extensions.getExtension(extensionId)) {
    return protocol.failure('no-extension', `${extensionId} is not installed in this window`);
  }
  const link = protocol.panelUri(vscode.env.uriScheme, provider, session);
  if (!link) {
    return protocol.failure('unsupported', `${extensionId} offers no way to open a given conversation`);
  }
  const opened = await withTimeout(openOwnLink(vscode.Uri.parse(link)), SHOW_WAIT_MS, null);
  if (opened === null) {
    return protocol.failure('window-unreachable', 'the editor window did not answer: it is closed, or its browser tab is gone');
  }
  if (!opened) {
    return protocol.failure('failed', 'the editor did not open the link');
  }
  return { ok: true, protocol: protocol.PROTOCOL, opened: provider };
}

function panels() {
  const found = {};
  for (const [provider, extensionId] of Object.entries(protocol.PANEL_EXTENSIONS)) {
    found[provider] = Boolean(vscode.extensions.getExtension(extensionId));
  }
  return found;
}

async function describe(version) {
  return {
    companion: version,
    app: protocol.cleanName(vscode.env.appName),
    app_host: protocol.cleanName(vscode.env.appHost),
    ui: isDesktop() ? 'desktop' : 'web',
    remote: vscode.env.remoteName ? protocol.cleanName(vscode.env.remoteName) : null,
    version: vscode.version,
    terminals: await terminalEntries(),
    active: await entryOf(vscode.window.activeTerminal),
    panels: panels(),
  };
}

async function activate(context) {
  const version = context.extension.packageJSON.version;
  const folder = channel.channelFolder(context.extensionPath, process.env);
  const handle = async (request) => {
    if (request.op === 'show') {
      return show(request.pid);
    }
    if (request.op === 'panel') {
      return panel(request.provider, request.session);
    }
    return { ok: true, ...(await describe(version)), protocol: protocol.PROTOCOL };
  };
  try {
    served = await channel.open(folder, { handle, describe: () => describe(version) });
  } catch (error) {
    vscode.window.showWarningMessage(`lunavect companion: ${error.message}`);
    return;
  }
  const publish = () => served && served.publish();
  context.subscriptions.push(
    vscode.window.onDidOpenTerminal(publish),
    vscode.window.onDidCloseTerminal(publish),
    vscode.window.onDidChangeActiveTerminal(publish),
    vscode.window.onDidChangeTerminalState(publish),
    vscode.extensions.onDidChange(publish),
    vscode.window.registerUriHandler({ handleUri: () => undefined }), // `raise` only needs the window to handle it
    { dispose: () => served && served.close() },
  );
  // A terminal's process id arrives a moment after the terminal: publish again once it has.
  for (const terminal of vscode.window.terminals) {
    Promise.resolve(terminal.processId).then(publish, () => {});
  }
  context.subscriptions.push(
    vscode.window.onDidOpenTerminal((terminal) => Promise.resolve(terminal.processId).then(publish, () => {})),
  );
  process.once('exit', () => served && served.close());
}

function deactivate() {
  if (served) {
    served.close();
    served = null;
  }
}

module.exports = { activate, deactivate };
