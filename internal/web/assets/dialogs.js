// dialogs.js: the permission and question dialogs. Requests wait in a
// queue; the first is shown until it is answered here, in another tab or
// in the terminal.

import { api } from './api.js';

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// close closes a dialog and gives the prompt box a fresh focus on a wide
// screen (the focus a dialog hands back does not always take typing), and
// none on a phone, whose keyboard would open.
function close(d) {
  d.close();
  const box = $('prompt');
  box.blur();
  if (matchMedia('(min-width: 721px)').matches) box.focus({ preventScroll: true });
}

export class Dialogs {
  /** titleOf(sessionID) names a session for the dialogs. */
  constructor(titleOf, onError) {
    this.titleOf = titleOf;
    this.onError = onError;
    this.perms = [];
    this.questions = [];
    $('perm-once').addEventListener('click', () => this.reply('once'));
    $('perm-alwaysbtn').addEventListener('click', () => this.reply('always'));
    $('perm-reject').addEventListener('click', () => this.reply('reject', $('perm-message').value.trim()));
    $('q-send').addEventListener('click', () => this.answer());
    $('q-dismiss').addEventListener('click', () => this.dismiss());
    for (const d of [$('permission'), $('question')]) {
      // Escape does not dismiss a request: it must be answered.
      d.addEventListener('cancel', (e) => e.preventDefault());
    }
  }

  /** load replaces the queues with the server's pending requests. */
  async load() {
    const [perms, qs] = await Promise.all([api('permission'), api('question')]);
    this.perms = perms;
    this.questions = qs;
    this.show();
  }

  addPermission(p) {
    if (!this.perms.some((x) => x.id === p.id)) this.perms.push(p);
    this.show();
  }

  addQuestion(q) {
    if (!this.questions.some((x) => x.id === q.id)) this.questions.push(q);
    this.show();
  }

  remove(id) {
    this.perms = this.perms.filter((x) => x.id !== id);
    this.questions = this.questions.filter((x) => x.id !== id);
    this.show();
  }

  show() {
    const pd = $('permission');
    const p = this.perms[0];
    if (!p) { if (pd.open) close(pd); } else if (pd.dataset.id !== p.id || !pd.open) {
      pd.dataset.id = p.id;
      $('perm-title').textContent = `Allow ${p.permission}?`;
      $('perm-session').textContent = this.titleOf(p.sessionID);
      const ul = $('perm-patterns');
      ul.replaceChildren(...(p.patterns || []).map((x) => { const li = el('li'); li.append(el('code', null, x)); return li; }));
      $('perm-reason').textContent = p.reason || '';
      const always = $('perm-alwaysbtn');
      always.hidden = !(p.always && p.always.length);
      $('perm-always').textContent = p.protected
        ? 'Protected: "Allow always" allows this once.'
        : (p.always && p.always.length ? 'Allow always allows from now on in this session: ' + p.always.join(', ') : '');
      $('perm-message').value = '';
      if (!pd.open) pd.showModal();
    }
    const qd = $('question');
    const q = this.questions[0];
    if (!q || p) { if (qd.open) close(qd); return; }
    if (qd.dataset.id === q.id && qd.open) return;
    qd.dataset.id = q.id;
    const body = $('q-body');
    body.replaceChildren();
    q.questions.forEach((qi, n) => {
      const fs = el('fieldset');
      fs.append(el('legend', null, qi.header || 'Question'), el('p', null, qi.question));
      for (const o of qi.options || []) {
        const label = el('label', 'option');
        const input = el('input');
        input.type = qi.multiple ? 'checkbox' : 'radio';
        input.name = 'q' + n;
        input.value = o.label;
        label.append(input, ' ', el('strong', null, o.label));
        if (o.description) label.append(' ', el('span', 'muted', o.description));
        fs.append(label);
      }
      const other = el('input', 'other');
      other.placeholder = 'Or type an answer';
      other.name = 'q' + n + '-other';
      fs.append(other);
      body.append(fs);
    });
    if (!qd.open) qd.showModal();
  }

  async reply(reply, message) {
    const p = this.perms[0];
    if (!p) return;
    try {
      await api(`permission/${p.id}/reply`, { method: 'POST', body: message ? { reply, message } : { reply } });
      this.remove(p.id);
    } catch (e) { this.onError(e); }
  }

  async answer() {
    const q = this.questions[0];
    if (!q) return;
    const form = $('question-form');
    const answers = q.questions.map((_, n) => {
      const picked = [...form.querySelectorAll(`input[name="q${n}"]:checked`)].map((i) => i.value);
      const other = form.querySelector(`input[name="q${n}-other"]`).value.trim();
      return other ? [...picked, other] : picked;
    });
    try {
      await api(`question/${q.id}/reply`, { method: 'POST', body: { answers } });
      this.remove(q.id);
    } catch (e) { this.onError(e); }
  }

  async dismiss() {
    const q = this.questions[0];
    if (!q) return;
    try {
      await api(`question/${q.id}/reject`, { method: 'POST' });
      this.remove(q.id);
    } catch (e) { this.onError(e); }
  }
}
