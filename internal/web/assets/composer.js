// composer.js: the prompt box. Enter sends, Shift+Enter starts a new
// line; "/" at the start completes a command, "@" a file or an agent.

import { api } from './api.js';

const $ = (id) => document.getElementById(id);

export class Composer {
  /**
   * src gives the completions: commands() [{name, description}],
   * agents() [names], seenPaths() [paths]; onSend(text) sends.
   */
  constructor(src, onSend) {
    this.src = src;
    this.onSend = onSend;
    this.box = $('prompt');
    this.pop = $('completions');
    this.items = [];
    this.sel = 0;
    this.seq = 0;
    this.findMissing = false;
    this.box.addEventListener('keydown', (e) => this.key(e));
    this.box.addEventListener('input', () => { this.grow(); this.complete(); });
    // A blur closes the list unless the box has the focus back by then: a
    // dialog hands it back, and a click elsewhere may have been followed by
    // more typing before the timer ran.
    this.box.addEventListener('blur', () => setTimeout(() => {
      if (document.activeElement !== this.box) this.close();
    }, 150));
    $('composer').addEventListener('submit', (e) => { e.preventDefault(); this.send(); });
    this.pop.addEventListener('mousedown', (e) => {
      const li = e.target.closest('li');
      if (li) { e.preventDefault(); this.pick(Number(li.dataset.i)); }
    });
  }

  grow() {
    this.box.style.height = 'auto';
    this.box.style.height = Math.min(this.box.scrollHeight, 240) + 'px';
  }

  set(text) {
    this.box.value = text;
    this.grow();
    this.box.focus();
  }

  send() {
    const text = this.box.value;
    if (!text.trim()) return;
    this.box.value = '';
    this.grow();
    this.close();
    this.onSend(text);
  }

  key(e) {
    if (e.isComposing) return;
    if (!this.pop.hidden && this.items.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.sel = (this.sel + (e.key === 'ArrowDown' ? 1 : this.items.length - 1)) % this.items.length;
        this.draw();
        return;
      }
      if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') { e.preventDefault(); this.pick(this.sel); return; }
      if (e.key === 'Escape') { e.preventDefault(); this.close(); return; }
    }
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); this.send(); }
  }

  // word returns the "@..." or leading "/..." being typed at the caret.
  word() {
    const upto = this.box.value.slice(0, this.box.selectionStart);
    let m = /^\/(\S*)$/.exec(upto);
    if (m) return { kind: '/', query: m[1], start: 0 };
    m = /(^|\s)@(\S*)$/.exec(upto);
    if (m) return { kind: '@', query: m[2], start: upto.length - m[2].length - 1 };
    return null;
  }

  async complete() {
    const w = this.word();
    const seq = ++this.seq;
    if (!w) { this.close(); return; }
    let items;
    const q = w.query.toLowerCase();
    if (w.kind === '/') {
      items = this.src.commands().filter((c) => c.name.toLowerCase().startsWith(q))
        .map((c) => ({ label: '/' + c.name, detail: c.description || '', insert: '/' + c.name + ' ' }));
    } else {
      const files = await this.files(w.query);
      if (seq !== this.seq) return;
      const agents = this.src.agents().filter((a) => a.toLowerCase().startsWith(q))
        .map((a) => ({ label: '@' + a, detail: 'agent', insert: '@' + a + ' ' }));
      items = [...files.map((f) => ({ label: f, detail: '', insert: '@' + f + ' ' })), ...agents];
    }
    this.items = items.slice(0, 12);
    this.word0 = w;
    this.sel = 0;
    this.draw();
  }

  // files lists files matching query: the server's file search where it
  // has one, else the paths this session's tools touched.
  async files(query) {
    if (!this.findMissing) {
      try {
        const found = await api('find/file?query=' + encodeURIComponent(query));
        if (Array.isArray(found)) return found.slice(0, 10);
      } catch (e) {
        if (e.status === 404) this.findMissing = true;
      }
    }
    const q = query.toLowerCase();
    return this.src.seenPaths().filter((p) => p.toLowerCase().includes(q)).slice(0, 10);
  }

  draw() {
    if (!this.items.length) { this.close(); return; }
    this.pop.replaceChildren(...this.items.map((it, i) => {
      const li = document.createElement('li');
      li.dataset.i = i;
      li.setAttribute('role', 'option');
      if (i === this.sel) li.setAttribute('aria-selected', 'true');
      const b = document.createElement('span');
      b.className = 'c-label';
      b.textContent = it.label;
      const d = document.createElement('span');
      d.className = 'c-detail';
      d.textContent = it.detail;
      li.append(b, d);
      return li;
    }));
    this.pop.hidden = false;
  }

  pick(i) {
    const it = this.items[i];
    const w = this.word0;
    if (!it || !w) return;
    const v = this.box.value;
    const end = this.box.selectionStart;
    this.box.value = v.slice(0, w.start) + it.insert + v.slice(end);
    const caret = w.start + it.insert.length;
    this.box.setSelectionRange(caret, caret);
    this.close();
    this.box.focus();
  }

  close() {
    this.pop.hidden = true;
    this.items = [];
  }
}
