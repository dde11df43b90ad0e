// md.js: Markdown to DOM and code highlighting, small and our own. It
// builds elements and text nodes only (never HTML from the text), so what
// a model writes cannot inject markup or script.

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** markdown renders text as a fragment of block elements. */
export function markdown(text) {
  const out = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  let para = [];
  const flush = () => {
    if (para.length) {
      const p = el('p');
      inline(p, para.join('\n'));
      out.append(p);
      para = [];
    }
  };
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if ((m = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line))) {
      flush();
      const fence = m[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i++;
      out.append(codeBlock(body.join('\n'), m[3]));
      continue;
    }
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      flush();
      const h = el('h' + Math.min(6, m[1].length + 2));
      inline(h, m[2].replace(/\s+#+\s*$/, ''));
      out.append(h);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.append(el('hr'));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*> ?/, ''));
      const q = el('blockquote');
      q.append(markdown(body.join('\n')));
      out.append(q);
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      flush();
      const [list, next] = parseList(lines, i);
      out.append(list);
      i = next;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      flush();
      const rows = [line];
      i += 2;
      while (i < lines.length && lines[i].includes('|') && lines[i].trim()) rows.push(lines[i++]);
      out.append(table(rows));
      continue;
    }
    if (!line.trim()) {
      flush();
      i++;
      continue;
    }
    para.push(line);
    i++;
  }
  flush();
  return out;
}

function parseList(lines, start) {
  const indent = (s) => s.match(/^\s*/)[0].length;
  const base = indent(lines[start]);
  const ordered = /^\s*\d/.test(lines[start]);
  const list = el(ordered ? 'ol' : 'ul');
  if (ordered) {
    const n = parseInt(lines[start].trim(), 10);
    if (n !== 1) list.start = n;
  }
  let i = start;
  let item = null;
  let body = [];
  const end = () => {
    if (!item) return;
    const text = body.join('\n');
    if (/\n\s*([-*+]|\d+[.)])\s+/.test(text) || text.includes('```')) item.append(markdown(text));
    else inline(item, text);
    list.append(item);
  };
  while (i < lines.length) {
    const line = lines[i];
    const m = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (m && indent(line) === base) {
      end();
      item = el('li');
      let t = m[3];
      const task = /^\[([ xX])\]\s+/.exec(t);
      if (task) {
        const box = el('input');
        box.type = 'checkbox';
        box.disabled = true;
        box.checked = task[1] !== ' ';
        item.append(box, ' ');
        t = t.slice(task[0].length);
      }
      body = [t];
      i++;
      continue;
    }
    if (!line.trim()) {
      if (i + 1 < lines.length && indent(lines[i + 1]) > base) { body.push(''); i++; continue; }
      break;
    }
    if (indent(line) > base) { body.push(line.slice(Math.min(indent(line), base + 2))); i++; continue; }
    break;
  }
  end();
  return [list, i];
}

function table(rows) {
  const cells = (r) => r.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const t = el('table');
  const head = el('thead');
  const tr = el('tr');
  for (const c of cells(rows[0])) { const th = el('th'); inline(th, c); tr.append(th); }
  head.append(tr);
  const body = el('tbody');
  for (const r of rows.slice(1)) {
    const row = el('tr');
    for (const c of cells(r)) { const td = el('td'); inline(td, c); row.append(td); }
    body.append(row);
  }
  t.append(head, body);
  const wrap = el('div', 'table-wrap');
  wrap.append(t);
  return wrap;
}

const inlineRe = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|~~([\s\S]+?)~~|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/;

/** inline appends text's inline Markdown (code, emphasis, links) to parent. */
export function inline(parent, text) {
  while (text) {
    const m = inlineRe.exec(text);
    if (!m) { parent.append(text); return; }
    if (m.index) parent.append(text.slice(0, m.index));
    if (m[1]) parent.append(el('code', null, m[2].replace(/^ (.*) $/, '$1')));
    else if (m[3] || m[4]) { const b = el('strong'); inline(b, m[3] || m[4]); parent.append(b); }
    else if (m[5] || m[6]) { const e = el('em'); inline(e, m[5] || m[6]); parent.append(e); }
    else if (m[7]) { const s = el('del'); inline(s, m[7]); parent.append(s); }
    else if (m[8]) parent.append(link(m[9], m[8]));
    else if (m[10]) parent.append(link(m[10], m[10]));
    text = text.slice(m.index + m[0].length);
  }
}

function link(href, label) {
  if (!/^(https?:|mailto:)/i.test(href)) return document.createTextNode(label);
  const a = el('a');
  a.href = href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  inline(a, label);
  return a;
}

/** codeBlock renders code highlighted for lang, with a copy-free plain pre. */
export function codeBlock(code, lang) {
  const pre = el('pre', 'code');
  const c = el('code');
  if (lang) { c.dataset.lang = lang; pre.dataset.lang = lang; }
  c.append(highlight(code, lang));
  pre.append(c);
  return pre;
}

const words = (s) => new Set(s.split(' '));
const langs = {
  go: words('break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota string int int64 uint8 byte rune error bool float64 any make new len cap append'),
  js: words('async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield null undefined true false interface type enum implements readonly'),
  py: words('and as assert async await break class continue def del elif else except finally for from global if import in is lambda None nonlocal not or pass raise return True False try while with yield self'),
  sh: words('if then else elif fi for while until do done case esac in function return export local echo cd set unset exit source'),
  rust: words('as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err'),
  c: words('auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class public private protected namespace template new delete true false null NULL bool'),
  json: words('true false null'),
};
const aliases = { golang: 'go', javascript: 'js', ts: 'js', typescript: 'js', jsx: 'js', tsx: 'js', mjs: 'js', python: 'py', bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', rs: 'rust', cpp: 'c', 'c++': 'c', h: 'c', java: 'c', cs: 'c', kotlin: 'c', swift: 'c', yaml: 'sh', yml: 'sh', toml: 'sh' };

/** highlight returns code as spans of token classes for lang. */
export function highlight(code, lang) {
  const frag = document.createDocumentFragment();
  lang = (lang || '').toLowerCase();
  if (lang === 'diff' || lang === 'patch') {
    for (const line of code.split('\n')) {
      const cls = line.startsWith('+') ? 'tok-add' : line.startsWith('-') ? 'tok-del' : line.startsWith('@@') ? 'tok-hunk' : '';
      frag.append(cls ? el('span', cls, line) : line, '\n');
    }
    frag.lastChild.remove();
    return frag;
  }
  const key = aliases[lang] || lang;
  const kw = langs[key];
  if (!kw) { frag.append(code); return frag; }
  const hashComment = key === 'py' || key === 'sh';
  const re = hashComment
    ? /(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g
    : /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g;
  let last = 0;
  for (const m of code.matchAll(re)) {
    let cls = '';
    if (m[1]) cls = 'tok-com';
    else if (m[2]) cls = 'tok-str';
    else if (m[3]) cls = 'tok-num';
    else if (kw.has(m[4])) cls = 'tok-kw';
    else if (code[m.index + m[0].length] === '(') cls = 'tok-fn';
    if (!cls) continue;
    if (m.index > last) frag.append(code.slice(last, m.index));
    frag.append(el('span', cls, m[0]));
    last = m.index + m[0].length;
  }
  if (last < code.length) frag.append(code.slice(last));
  return frag;
}
