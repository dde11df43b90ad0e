// render.js: a message as an element: the user's text, the answer's
// Markdown, reasoning and tool calls folded, edits as diffs.

import { markdown, codeBlock, highlight } from './md.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const maxOutput = 20000;

/** clip shortens long text, saying how much was left out. */
function clip(s) {
  if (!s || s.length <= maxOutput) return s || '';
  return s.slice(0, maxOutput) + `\n… ${s.length - maxOutput} more characters`;
}

/** tokens formats a count of tokens ("12.3k"). */
export function tokens(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

/** time formats a Unix time in milliseconds for a list. */
export function when(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const now = new Date();
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

/**
 * renderMessage returns the element of msg ({info, parts}). open is the
 * set of part ids whose fold the user opened.
 */
export function renderMessage(msg, open) {
  const { info, parts } = msg;
  const row = el('article', 'msg ' + info.role);
  row.dataset.id = info.id;
  if (info.role === 'user') {
    const bubble = el('div', 'bubble');
    for (const p of parts) {
      if (p.type === 'text' && !p.synthetic) bubble.append(el('div', 'user-text', p.text));
      else if (p.type === 'file') bubble.append(el('div', 'attachment', '📎 ' + (p.filename || p.url)));
    }
    row.append(bubble);
    return row;
  }
  for (const p of parts) {
    const e = renderPart(p, open);
    if (e) row.append(e);
  }
  if (info.error) {
    const msgText = (info.error.data && info.error.data.message) || info.error.name;
    row.append(el('div', 'error', msgText));
  }
  if (info.time && info.time.completed) {
    const bits = [];
    if (info.modelID) bits.push(info.modelID);
    if (info.tokens) bits.push(tokens((info.tokens.input || 0) + (info.tokens.output || 0) + ((info.tokens.cache && info.tokens.cache.read) || 0)) + ' tokens');
    if (info.cost) bits.push('$' + info.cost.toFixed(4));
    if (bits.length) row.append(el('div', 'meta', bits.join(' · ')));
  }
  return row;
}

function fold(p, open, summary, body) {
  const d = el('details', 'fold ' + p.type);
  d.dataset.part = p.id;
  if (open.has(p.id)) d.open = true;
  const s = el('summary');
  s.append(summary);
  d.append(s);
  // The body is drawn when the fold is opened.
  const fill = () => { if (d.childElementCount === 1) d.append(body()); };
  if (d.open) fill();
  d.addEventListener('toggle', () => {
    if (d.open) { open.add(p.id); fill(); } else open.delete(p.id);
    d.dispatchEvent(new CustomEvent('fold', { bubbles: true }));
  });
  return d;
}

function renderPart(p, open) {
  switch (p.type) {
    case 'text': {
      if (p.synthetic || !p.text) return null;
      const d = el('div', 'md');
      d.append(markdown(p.text));
      return d;
    }
    case 'reasoning':
      if (!p.text) return null;
      return fold(p, open, document.createTextNode('Thinking'), () => { const d = el('div', 'md reasoning'); d.append(markdown(p.text)); return d; });
    case 'tool':
      return renderTool(p, open);
    case 'patch':
      return el('div', 'note', `Changed ${(p.files || []).length} file(s)`);
    case 'retry':
      return el('div', 'note', `Retry ${p.attempt}: ${(p.error && p.error.data && p.error.data.message) || ''}`);
    case 'compaction':
      return el('div', 'note', 'The conversation was compacted');
    case 'agent':
      return el('div', 'note', '@' + p.name);
    case 'subtask':
      return el('div', 'note', `Sub-agent ${p.agent}: ${p.description || ''}`);
    default:
      return null;
  }
}

function toolInput(st) {
  if (!st || !st.input) return {};
  return typeof st.input === 'string' ? (() => { try { return JSON.parse(st.input); } catch { return {}; } })() : st.input;
}

/** toolLine summarises a call: what its tool says it works on, else its title. */
function toolLine(p) {
  const st = p.state || {};
  return p.summary || st.title || '';
}

/** toolDiff is the diff of the files a call changed, as its tool lists them (OpenCode's diff for older calls). */
function toolDiff(st) {
  const meta = st.metadata || {};
  if (Array.isArray(meta.changes) && meta.changes.length) return meta.changes.map((c) => c.patch || '').join('\n');
  return typeof meta.diff === 'string' ? meta.diff : '';
}

function renderTool(p, open) {
  const st = p.state || { status: 'pending' };
  const sum = document.createDocumentFragment();
  sum.append(el('span', 'tool-status ' + st.status, st.status === 'completed' ? '✓' : st.status === 'error' ? '✗' : '…'),
    el('span', 'tool-name', p.tool), el('span', 'tool-line', toolLine(p)));
  const diff = toolDiff(st);
  const box = el('div', 'tool');
  if (diff) {
    // Edits show their diff unfolded.
    box.append(el('div', 'tool-head', ''));
    box.firstChild.append(sum);
    box.append(renderDiff(diff));
    if (st.status === 'error') box.append(el('div', 'error', st.error));
    return box;
  }
  return fold(p, open, sum, () => {
    const body = el('div', 'tool-body');
    const inp = toolInput(st);
    // A command shows as a command; a summary cut short leaves the arguments to show it whole.
    const command = p.kind === 'execute' && p.summary;
    if (command) body.append(codeBlock(p.summary, 'sh'));
    if ((!command || p.summary.endsWith('…')) && Object.keys(inp).length) body.append(codeBlock(JSON.stringify(inp, null, 2), 'json'));
    if (st.status === 'error') body.append(el('pre', 'error', clip(st.error)));
    else if (st.output) body.append(el('pre', 'output', clip(st.output)));
    return body;
  });
}

/** renderDiff shows a unified diff with added and removed lines marked. */
export function renderDiff(diff) {
  const pre = el('pre', 'code diff');
  const c = el('code');
  const lines = clip(diff).split('\n').filter((l) => !/^(Index:|={5,}|diff --git)/.test(l));
  c.append(highlight(lines.join('\n'), 'diff'));
  pre.append(c);
  return pre;
}
