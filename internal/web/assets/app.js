// app.js: the codeloop page. It reaches the engine only through the
// server's API (api.js) and follows its event stream, so several tabs
// and the terminal interface on the same session stay in step.

import { api, subscribe, AuthError } from './api.js';
import { VList } from './vlist.js';
import { renderMessage, when, tokens } from './render.js';
import { Composer } from './composer.js';
import { Dialogs } from './dialogs.js';

const $ = (id) => document.getElementById(id);

const S = {
  sessions: [],
  current: null, // the session shown
  shown: null, // the id of the session whose messages are on screen
  msgs: [], // its messages, oldest first: {info, parts}
  byId: new Map(),
  touched: new Set(), // messages events changed since the session became current or events were last missed
  status: {},
  open: new Set(),
  agents: [],
  commands: [],
  providers: [],
  defaultModel: null,
  previews: new Map(),
  paths: new Set(),
  loadSeq: 0,
  painted: false,
};

let list;
let dialogs;
let composer;
let stopEvents = null;

const clientCommands = {
  undo: { description: 'undo the last message and its file changes', run: () => undo() },
  redo: { description: 'restore what undo took back', run: () => redo() },
  new: { description: 'start a new session', run: () => { location.hash = ''; } },
  abort: { description: 'stop the answer', run: () => abort() },
};

function toast(err) {
  if (err instanceof AuthError) { loggedOut(); return; }
  const t = document.createElement('div');
  t.className = 'toast';
  t.textContent = err.message || String(err);
  document.body.append(t);
  setTimeout(() => t.remove(), 5000);
}

function loggedOut() {
  if (stopEvents) stopEvents();
  $('app').hidden = true;
  $('gate').hidden = false;
  for (const d of document.querySelectorAll('dialog')) if (d.open) d.close();
}

function applyTheme() {
  const t = localStorage.getItem('codeloop.theme') || 'auto';
  if (t === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
  $('theme').textContent = 'Theme: ' + t;
}

async function main() {
  applyTheme();
  try {
    await api('path');
  } catch (e) {
    if (e instanceof AuthError) { loggedOut(); return; }
    toast(e);
  }
  $('app').hidden = false;
  list = new VList($('scroller'), $('rows'), (m) => renderMessage(m, S.open), (m) => m.info.id);
  $('rows').addEventListener('fold', () => list.schedule());
  dialogs = new Dialogs((id) => { const s = S.sessions.find((x) => x.id === id); return s ? s.title : id; }, toast);
  composer = new Composer({
    commands: () => [...Object.entries(clientCommands).map(([name, c]) => ({ name, description: c.description })), ...S.commands],
    agents: () => S.agents.filter((a) => a.mode !== 'primary').map((a) => a.name),
    seenPaths: () => [...S.paths],
  }, (text) => send(text).catch(toast));
  wire();
  let connected = false;
  stopEvents = subscribe(onEvent, () => {
    // The first connection comes with the page's own loading, but a
    // prompt sent before it was up has its events missed: the session on
    // screen is read again. A later connection follows a break, in which
    // any event may have been missed.
    const first = !connected;
    connected = true;
    (first ? Promise.all([loadStatus(), S.current && openSession(S.current.id, true)]) : resync()).catch(toast);
  }, loggedOut);
  // The session first: it is what the page is opened for.
  route();
  await Promise.all([loadSessions(), loadPickers().then(drawFigures), dialogs.load()]).catch(toast);
  setTimeout(queuePreviews, 1500);
}

function wire() {
  window.addEventListener('hashchange', route);
  $('new-session').addEventListener('click', () => { location.hash = ''; document.body.classList.remove('side-open'); composer.set(''); });
  $('open-side').addEventListener('click', () => document.body.classList.add('side-open'));
  $('close-side').addEventListener('click', () => document.body.classList.remove('side-open'));
  $('theme').addEventListener('click', () => {
    const order = ['auto', 'light', 'dark'];
    const t = localStorage.getItem('codeloop.theme') || 'auto';
    localStorage.setItem('codeloop.theme', order[(order.indexOf(t) + 1) % 3]);
    applyTheme();
  });
  $('logout').addEventListener('click', async () => {
    await fetch('logout', { method: 'POST', credentials: 'same-origin' });
    loggedOut();
  });
  $('undo').addEventListener('click', () => undo().catch(toast));
  $('redo').addEventListener('click', () => redo().catch(toast));
  $('abort').addEventListener('click', () => abort().catch(toast));
  $('session-search').addEventListener('input', drawSessions);
  $('model').addEventListener('change', () => localStorage.setItem('codeloop.model', $('model').value));
  $('agent').addEventListener('change', () => localStorage.setItem('codeloop.agent', $('agent').value));
}

function route() {
  const m = /^#\/s\/(.+)$/.exec(location.hash);
  document.body.classList.remove('side-open');
  if (m) openSession(decodeURIComponent(m[1])).catch(toast);
  else showSession(null);
}

// resync reloads what events may have been missed (a reconnection).
async function resync() {
  if (!list) return;
  await Promise.all([loadSessions(), dialogs.load(), loadStatus()]);
  if (S.current) await reload();
}

// reload reads the session on screen again after events were missed:
// what events brought before then may be out of date.
function reload() {
  S.touched = new Set();
  return openSession(S.current.id, true);
}

async function loadStatus() {
  S.status = await api('session/status');
  drawStatus();
  drawSessions();
}

async function loadSessions() {
  S.sessions = await api('session?roots=true');
  drawSessions();
}

async function loadPickers() {
  const [agents, commands, prov] = await Promise.all([api('agent'), api('command'), api('config/providers')]);
  S.agents = agents;
  S.commands = commands.map((c) => ({ name: c.name, description: c.description || '' }));
  S.providers = prov.providers || [];
  S.defaultModel = prov.model || null;
  const agentSel = $('agent');
  const primary = agents.filter((a) => a.mode !== 'subagent' && !a.hidden);
  agentSel.replaceChildren(...primary.map((a) => new Option(a.name, a.name)));
  const savedAgent = localStorage.getItem('codeloop.agent');
  if (savedAgent && primary.some((a) => a.name === savedAgent)) agentSel.value = savedAgent;
  const modelSel = $('model');
  const def = S.defaultModel ? `default (${S.defaultModel.providerID}/${S.defaultModel.modelID})` : 'default';
  const opts = [new Option(def, '')];
  for (const p of S.providers) for (const m of modelsOf(p)) opts.push(new Option(`${p.name || p.id}: ${m.name || m.id}`, `${p.id}/${m.id}`));
  modelSel.replaceChildren(...opts);
  const savedModel = localStorage.getItem('codeloop.model');
  if (savedModel && opts.some((o) => o.value === savedModel)) modelSel.value = savedModel;
}

function drawSessions() {
  const q = $('session-search').value.toLowerCase();
  const ul = $('sessions');
  const items = S.sessions.filter((s) => !q || (s.title || '').toLowerCase().includes(q) || (S.previews.get(s.id) || '').toLowerCase().includes(q));
  ul.replaceChildren(...items.map((s) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#/s/' + encodeURIComponent(s.id);
    if (S.current && S.current.id === s.id) a.setAttribute('aria-current', 'page');
    const t = document.createElement('span');
    t.className = 's-title';
    t.textContent = s.title || 'Untitled';
    const w = document.createElement('span');
    w.className = 's-when';
    const st = S.status[s.id];
    w.textContent = (st && st.type !== 'idle' ? '● ' : '') + when(s.time.updated);
    const p = document.createElement('span');
    p.className = 's-preview';
    p.textContent = S.previews.get(s.id) || '';
    a.append(t, w, p);
    li.append(a);
    return li;
  }));
}

// queuePreviews fetches, one at a time, the first message of the listed
// sessions that have no preview yet.
let previewing = false;
async function queuePreviews() {
  if (previewing) return;
  previewing = true;
  try {
    for (const s of S.sessions.slice(0, 30)) {
      if (S.previews.has(s.id) || (S.current && S.current.id === s.id)) continue;
      const cached = sessionStorage.getItem('codeloop.preview.' + s.id);
      if (cached !== null) { S.previews.set(s.id, cached); continue; }
      const msgs = await api(`session/${s.id}/message`).catch(() => []);
      setPreview(s.id, msgs);
    }
  } finally { previewing = false; }
  drawSessions();
}

function setPreview(id, msgs) {
  const first = msgs.find((m) => m.info.role === 'user');
  const text = first ? first.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text).join(' ').slice(0, 140) : '';
  S.previews.set(id, text);
  try { sessionStorage.setItem('codeloop.preview.' + id, text); } catch { /* full */ }
}

function showSession(s) {
  // An event may have brought a newer state than the one fetched.
  const known = s && S.sessions.find((x) => x.id === s.id);
  if (known && known.time.updated > s.time.updated) s = known;
  S.current = s;
  $('title').textContent = s ? s.title || 'Untitled' : 'New session';
  document.title = s ? `${s.title} · codeloop` : 'codeloop';
  if (!s) { S.msgs = []; S.byId = new Map(); S.shown = null; applyVisible(true); }
  drawStatus();
  drawSessions();
}

async function openSession(id, keep) {
  const seq = ++S.loadSeq;
  const s = await api('session/' + encodeURIComponent(id));
  if (seq !== S.loadSeq) return;
  // What events brought is tracked from the moment a session is current,
  // across every load of it: a load may replace one still in flight, and
  // an event may come before the store has what it says.
  if (!isCurrent(id)) S.touched = new Set();
  // Only messages already on screen may be kept: a load that replaced
  // one still in flight (the event stream's first connection does) shows
  // the latest messages first all the same.
  const same = S.shown === id;
  showSession(s);
  if (!same || !keep) {
    const recent = await api(`session/${encodeURIComponent(id)}/message?limit=40`);
    if (seq !== S.loadSeq) return;
    setMessages(withTouched(recent), true);
    S.shown = id;
    markPaint();
  }
  const all = await api(`session/${encodeURIComponent(id)}/message`);
  if (seq !== S.loadSeq) return;
  setMessages(withTouched(all), !keep);
  setPreview(id, all);
  drawSessions();
}

// withTouched returns the fetched messages with what events changed
// meanwhile in place of, or beside, the fetched copies; a message an event
// removed stays removed.
function withTouched(fetched) {
  if (S.touched.size === 0) return fetched;
  const out = [];
  for (const m of fetched) {
    if (!S.touched.has(m.info.id)) out.push(m);
    else if (S.byId.has(m.info.id)) out.push(S.byId.get(m.info.id));
  }
  const ids = new Set(fetched.map((m) => m.info.id));
  const extra = S.msgs.filter((m) => S.touched.has(m.info.id) && !ids.has(m.info.id));
  if (extra.length === 0) return out;
  return out.concat(extra).sort((a, b) => (a.info.id < b.info.id ? -1 : a.info.id > b.info.id ? 1 : 0));
}

function markPaint() {
  if (S.painted) return;
  S.painted = true;
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('codeloop:first-paint')));
}

function setMessages(msgs, atEnd) {
  S.msgs = msgs;
  S.byId = new Map(msgs.map((m) => [m.info.id, m]));
  for (const m of msgs) notePaths(m);
  applyVisible(atEnd);
}

function revertPoint() {
  const r = S.current && S.current.revert;
  return r && r.messageID ? r.messageID : null;
}

// applyVisible shows the messages before the revert point.
function applyVisible(atEnd) {
  const cut = revertPoint();
  const shown = cut ? S.msgs.filter((m) => m.info.id < cut) : S.msgs;
  const hidden = S.msgs.length - shown.length;
  $('revert-bar').hidden = !cut;
  $('revert-text').textContent = cut ? `${hidden} message(s) undone` : '';
  $('empty').hidden = shown.length > 0;
  $('rows').dataset.count = shown.length;
  list.setItems(shown, atEnd);
  drawFigures();
}

function notePaths(m) {
  for (const p of m.parts) {
    for (const t of (p.type === 'tool' && p.touches) || []) {
      if (typeof t.path === 'string' && t.path.length < 300) S.paths.add(t.path);
    }
  }
}

function drawStatus() {
  const st = S.current && S.status[S.current.id];
  const busy = !!(st && st.type !== 'idle');
  $('status').textContent = busy ? (st.type === 'retry' ? `retrying: ${st.message || ''}` : 'working…') : '';
  $('abort').hidden = !busy;
}

function drawFigures() {
  let cost = 0;
  let last = null;
  for (const m of S.msgs) {
    if (m.info.role !== 'assistant') continue;
    cost += m.info.cost || 0;
    if (m.info.tokens && (m.info.tokens.input || m.info.tokens.output)) last = m.info;
  }
  if (!last) { $('figures').textContent = cost ? '$' + cost.toFixed(4) : ''; return; }
  const t = last.tokens;
  const used = (t.input || 0) + (t.output || 0) + ((t.cache && (t.cache.read + t.cache.write)) || 0);
  let limit = 0;
  for (const p of S.providers) if (p.id === last.providerID) for (const m of modelsOf(p)) if (m.id === last.modelID) limit = (m.limit && m.limit.context) || 0;
  const pct = limit ? ` (${Math.round((100 * used) / limit)}%)` : '';
  $('figures').textContent = `${tokens(used)}${limit ? '/' + tokens(limit) : ''} tokens${pct} · $${cost.toFixed(4)}`;
}

function upsertMessage(info) {
  let m = S.byId.get(info.id);
  if (m) m.info = info;
  else {
    m = { info, parts: [] };
    S.byId.set(info.id, m);
    let i = S.msgs.length;
    while (i > 0 && S.msgs[i - 1].info.id > info.id) i--;
    S.msgs.splice(i, 0, m);
  }
  S.touched.add(info.id);
  return m;
}

function isCurrent(sessionID) { return S.current && S.current.id === sessionID; }

// changed draws m again, or the whole list when a message came or went.
function changed(m, structure) {
  if (structure) applyVisible(false);
  else list.refresh(m.info.id);
}

function onEvent(e) {
  const p = e.properties || {};
  switch (e.type) {
    case 'session.created':
    case 'session.updated': {
      if (p.info.parentID) break;
      const i = S.sessions.findIndex((s) => s.id === p.info.id);
      if (i >= 0) S.sessions.splice(i, 1);
      S.sessions.unshift(p.info);
      if (isCurrent(p.info.id)) {
        const before = revertPoint();
        S.current = p.info;
        $('title').textContent = p.info.title || 'Untitled';
        if (before !== revertPoint()) applyVisible(false);
      }
      drawSessions();
      break;
    }
    case 'session.deleted':
      S.sessions = S.sessions.filter((s) => s.id !== p.info.id);
      if (isCurrent(p.info.id)) location.hash = '';
      drawSessions();
      break;
    case 'session.status':
      if (p.status.type === 'idle') delete S.status[p.sessionID]; else S.status[p.sessionID] = p.status;
      drawStatus();
      drawSessions();
      break;
    case 'message.updated': {
      if (!isCurrent(p.info.sessionID)) break;
      const had = S.byId.has(p.info.id);
      const m = upsertMessage(p.info);
      changed(m, !had);
      drawFigures();
      break;
    }
    case 'message.removed': {
      if (!isCurrent(p.sessionID)) break;
      S.msgs = S.msgs.filter((m) => m.info.id !== p.messageID);
      S.byId.delete(p.messageID);
      S.touched.add(p.messageID);
      applyVisible(false);
      break;
    }
    case 'message.part.updated': {
      const part = p.part;
      if (!isCurrent(part.sessionID)) break;
      const m = S.byId.get(part.messageID);
      if (!m) break;
      const i = m.parts.findIndex((x) => x.id === part.id);
      if (i >= 0) m.parts[i] = part; else m.parts.push(part);
      S.touched.add(m.info.id);
      notePaths(m);
      changed(m, false);
      break;
    }
    case 'message.part.delta': {
      if (!isCurrent(p.sessionID)) break;
      const m = S.byId.get(p.messageID);
      const part = m && m.parts.find((x) => x.id === p.partID);
      if (!part) break;
      part[p.field] = (part[p.field] || '') + p.delta;
      changed(m, false);
      break;
    }
    case 'message.part.removed': {
      const m = isCurrent(p.sessionID) && S.byId.get(p.messageID);
      if (!m) break;
      m.parts = m.parts.filter((x) => x.id !== p.partID);
      changed(m, false);
      break;
    }
    case 'permission.asked': dialogs.addPermission(p); break;
    case 'permission.replied': dialogs.remove(p.requestID); break;
    case 'question.asked': dialogs.addQuestion(p); break;
    case 'question.replied':
    case 'question.rejected': dialogs.remove(p.requestID); break;
    case 'client.events.dropped': if (S.current) reload().catch(toast); break;
    case 'hook.notice': if (p.error) toast(new Error(`hook ${p.command}: ${p.text}`)); break;
  }
}

function choice() {
  const out = {};
  const agent = $('agent').value;
  if (agent) out.agent = agent;
  const model = $('model').value;
  if (model) {
    const i = model.indexOf('/');
    out.model = { providerID: model.slice(0, i), modelID: model.slice(i + 1) };
  }
  return out;
}

async function send(text) {
  const cmd = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (cmd && clientCommands[cmd[1]]) return clientCommands[cmd[1]].run(cmd[2]);
  if (!S.current) {
    const s = await api('session', { method: 'POST', body: {} });
    location.hash = '#/s/' + encodeURIComponent(s.id);
    S.current = s;
    showSession(s);
  }
  const sid = encodeURIComponent(S.current.id);
  list.scrollToEnd();
  if (cmd && S.commands.some((c) => c.name === cmd[1])) {
    await api(`session/${sid}/command_async`, { method: 'POST', body: { command: cmd[1], arguments: cmd[2], ...choice() } });
    return;
  }
  try {
    await api(`session/${sid}/prompt_async`, { method: 'POST', body: { parts: [{ type: 'text', text }], ...choice() } });
  } catch (e) {
    composer.set(text);
    throw e;
  }
}

async function undo() {
  if (!S.current) return;
  const cut = revertPoint();
  const users = S.msgs.filter((m) => m.info.role === 'user' && (!cut || m.info.id < cut));
  const last = users[users.length - 1];
  if (!last) { toast(new Error('nothing to undo')); return; }
  if (S.status[S.current.id]) await abort();
  const s = await api(`session/${encodeURIComponent(S.current.id)}/revert`, { method: 'POST', body: { messageID: last.info.id } });
  S.current = s;
  applyVisible(false);
  composer.set(last.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text).join('\n'));
}

async function redo() {
  if (!S.current || !revertPoint()) return;
  const s = await api(`session/${encodeURIComponent(S.current.id)}/unrevert`, { method: 'POST' });
  S.current = s;
  applyVisible(true);
}

async function abort() {
  if (S.current) await api(`session/${encodeURIComponent(S.current.id)}/abort`, { method: 'POST' });
}

main().catch(toast);

// modelsOf lists a provider's models: the server sends them keyed by id.
function modelsOf(p) {
  return Object.values(p.models || {});
}
