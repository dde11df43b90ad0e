// vlist.js: a virtualised list. Only the rows in view (and a few around)
// are in the document; the others are counted by their measured height,
// or an estimate until they have been drawn once.

export class VList {
  /**
   * scroller is the scrolling element, inner the element rows are placed
   * in; render(item) returns a row's element; key(item) its stable key.
   */
  constructor(scroller, inner, render, key) {
    this.scroller = scroller;
    this.inner = inner;
    this.render = render;
    this.key = key;
    this.items = [];
    this.heights = new Map(); // key -> measured height
    this.rows = new Map(); // key -> element in the document
    this.dirty = new Set(); // keys to draw again
    this.estimate = 96;
    this.offsets = [0];
    this.stick = true; // follow the end
    this.frame = 0;
    scroller.addEventListener('scroll', () => {
      const s = this.scroller;
      this.stick = s.scrollHeight - s.scrollTop - s.clientHeight < 40;
      this.schedule();
    }, { passive: true });
    new ResizeObserver(() => this.schedule()).observe(scroller);
  }

  /** setItems replaces the items; atEnd scrolls to the last one. */
  setItems(items, atEnd) {
    this.items = items;
    this.dirty = new Set(items.map(this.key));
    if (atEnd) this.stick = true;
    this.layout();
    this.update();
  }

  /** refresh draws the row of key again (its item changed). */
  refresh(key) {
    this.dirty.add(key);
    this.schedule();
  }

  /** refreshAll draws every row again. */
  refreshAll() {
    for (const it of this.items) this.dirty.add(this.key(it));
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.update(); });
  }

  /** scrollToEnd shows the last row. */
  scrollToEnd() {
    this.stick = true;
    this.update();
  }

  height(i) {
    const h = this.heights.get(this.key(this.items[i]));
    return h === undefined ? this.estimate : h;
  }

  layout() {
    const n = this.items.length;
    const off = new Array(n + 1);
    off[0] = 0;
    for (let i = 0; i < n; i++) off[i + 1] = off[i] + this.height(i);
    this.offsets = off;
    this.inner.style.height = off[n] + 'px';
  }

  // first returns the index of the row at y.
  first(y) {
    let lo = 0;
    let hi = this.items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  update() {
    const s = this.scroller;
    for (let pass = 0; pass < 3; pass++) {
      if (this.stick) s.scrollTop = s.scrollHeight;
      const top = s.scrollTop;
      const view = s.clientHeight || 800;
      const n = this.items.length;
      let from = this.first(top);
      let to = from;
      while (to < n && this.offsets[to] < top + view) to++;
      from = Math.max(0, from - 4);
      to = Math.min(n, to + 4);
      const want = new Set();
      const anchor = this.items[this.first(top)];
      const anchorKey = anchor && this.key(anchor);
      const anchorDelta = anchor ? top - this.offsets[this.first(top)] : 0;
      for (let i = from; i < to; i++) {
        const it = this.items[i];
        const k = this.key(it);
        want.add(k);
        let row = this.rows.get(k);
        if (!row || this.dirty.has(k)) {
          const fresh = this.render(it);
          fresh.classList.add('vrow');
          fresh.dataset.key = k;
          if (row) row.replaceWith(fresh); else this.inner.append(fresh);
          row = fresh;
          this.rows.set(k, row);
          this.dirty.delete(k);
        }
        row.style.transform = `translateY(${this.offsets[i]}px)`;
      }
      for (const [k, row] of this.rows) {
        if (!want.has(k)) { row.remove(); this.rows.delete(k); }
      }
      // Measure what was drawn; lay out again when an estimate was wrong.
      let changed = false;
      for (const k of want) {
        const h = this.rows.get(k).offsetHeight;
        if (this.heights.get(k) !== h) { this.heights.set(k, h); changed = true; }
      }
      if (!changed) break;
      this.layout();
      for (let i = from; i < to; i++) {
        const k = this.key(this.items[i]);
        this.rows.get(k).style.transform = `translateY(${this.offsets[i]}px)`;
      }
      if (!this.stick && anchorKey !== undefined) {
        // Keep the row at the top of the view where it was.
        const idx = this.items.indexOf(anchor);
        if (idx >= 0) s.scrollTop = this.offsets[idx] + anchorDelta;
      }
    }
  }

  /** rowOf returns the element drawn for key, if it is in the document. */
  rowOf(key) { return this.rows.get(key); }
}
