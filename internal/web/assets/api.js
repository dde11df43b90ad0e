// api.js: the server's API for the page, under /web/api/, authenticated
// by the session cookie the login set.

/** AuthError: the browser is not logged in (401). */
export class AuthError extends Error {}

/** api calls the route at path ("session", "session/ID/message") and returns its JSON, or null for 204. */
export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch('api/' + path, init);
  if (r.status === 401) throw new AuthError('not logged in');
  if (!r.ok) {
    let msg = r.status + ' ' + r.statusText;
    try { msg = (await r.json()).data.message || msg; } catch { /* not JSON */ }
    const e = new Error(msg);
    e.status = r.status;
    throw e;
  }
  if (r.status === 204) return null;
  return r.json();
}

/**
 * subscribe follows the event stream: onEvent gets each {type, properties},
 * onOpen runs at each (re)connection, onClosed when the server refuses it.
 * It returns a function that stops it.
 */
export function subscribe(onEvent, onOpen, onClosed) {
  let es = null;
  let stopped = false;
  let timer = 0;
  const open = () => {
    es = new EventSource('api/event', { withCredentials: true });
    es.onmessage = (m) => {
      let e;
      try { e = JSON.parse(m.data); } catch { return; }
      if (e.type === 'server.connected') onOpen();
      else onEvent(e);
    };
    es.onerror = () => {
      if (es.readyState !== EventSource.CLOSED || stopped) return;
      // A refused stream closes for good: check why, and retry unless it
      // was the login.
      fetch('api/global/health', { credentials: 'same-origin' }).then((r) => {
        if (r.status === 401) onClosed();
        else timer = setTimeout(open, 1000);
      }, () => { timer = setTimeout(open, 2000); });
    };
  };
  open();
  return () => { stopped = true; clearTimeout(timer); if (es) es.close(); };
}
