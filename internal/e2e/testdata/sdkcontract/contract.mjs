// contract.mjs calls every method of OpenCode's SDK (v1 and v2 clients)
// once against a running codeloop serve and checks each answer against
// the SDK's own types, read with the TypeScript compiler. It prints a
// JSON report: one entry per call with its route, status and failures
// (a 404 or 405, a field the SDK's type requires that is missing or of
// the wrong kind, a 501 whose body is not an UnsupportedError), and
// whether session.idle was seen on the event stream.
//
// env: SDK_DIR (the @opencode-ai/sdk package), TS_DIR (the typescript
// package), SERVER_URL, SERVER_TOKEN.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sdkRoutes } from "./routes.mjs";

const { SDK_DIR, TS_DIR, SERVER_URL, SERVER_TOKEN } = process.env;
const ts = createRequire(import.meta.url)(TS_DIR);
const auth = { Authorization: `Bearer ${SERVER_TOKEN}` };
const routes = sdkRoutes(SDK_DIR);

// The SDK's answer types, one alias per route.
const typesOf = { v1: join(SDK_DIR, "dist/gen/types.gen.d.ts"), v2: join(SDK_DIR, "dist/v2/gen/types.gen.d.ts") };
const virtual = "/__contract__/check.ts";
let src = "";
for (const v of ["v1", "v2"]) {
  routes[v].forEach((r, i) => {
    if (r.responses && !r.stream) src += `export type ${v}_${i} = import(${JSON.stringify(typesOf[v])}).${r.responses}[200];\n`;
  });
}
const opts = { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
const host = ts.createCompilerHost(opts);
const { getSourceFile, fileExists, readFile } = host;
host.getSourceFile = (f, l, ...rest) => (f === virtual ? ts.createSourceFile(f, src, l) : getSourceFile.call(host, f, l, ...rest));
host.fileExists = (f) => f === virtual || fileExists.call(host, f);
host.readFile = (f) => (f === virtual ? src : readFile.call(host, f));
const program = ts.createProgram([virtual], opts, host);
const checker = program.getTypeChecker();
const sf = program.getSourceFile(virtual);
const aliases = new Map();
for (const st of sf.statements) if (ts.isTypeAliasDeclaration(st)) aliases.set(st.name.text, checker.getTypeAtLocation(st.name));

// check lists how value falls short of type.
function check(type, value, path, depth, errs) {
  if (depth > 12) return;
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never | ts.TypeFlags.Void)) return;
  if (type.isUnion() && type.types.every((t) => t.isLiteral() || t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.BooleanLiteral))) {
    const vals = type.types.map((t) => (t.isLiteral() ? t.value : t.intrinsicName === "undefined" ? undefined : t.intrinsicName === "true"));
    if (!vals.includes(value)) errs.push(`${path || "(body)"}: want one of ${vals.filter((v) => v !== undefined).map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(value)}`);
    return;
  }
  if (type.isUnion()) {
    // The member whose literal members (its discriminant) match, then the
    // one with the fewest failures.
    let best = null, bestMiss = Infinity;
    for (const t of type.types) {
      const e = [];
      check(t, value, path, depth + 1, e);
      if (e.length === 0) return;
      let miss = 0;
      if (value && typeof value === "object" && t.flags & ts.TypeFlags.Object) {
        for (const p of checker.getPropertiesOfType(t)) {
          const pt = checker.getTypeOfSymbolAtLocation(p, sf);
          if (pt.isStringLiteral() && value[p.name] !== pt.value) miss++;
        }
      }
      if (miss < bestMiss || (miss === bestMiss && e.length < best.length)) { best = e; bestMiss = miss; }
    }
    errs.push(...best);
    return;
  }
  const want = (ok, what) => { if (!ok) errs.push(`${path || "(body)"}: want ${what}, got ${JSON.stringify(value)?.slice(0, 60)}`); };
  if (type.isStringLiteral()) return want(value === type.value, JSON.stringify(type.value));
  if (type.isNumberLiteral()) return want(value === type.value, String(type.value));
  if (f & ts.TypeFlags.BooleanLiteral) return want(value === (type.intrinsicName === "true"), type.intrinsicName);
  if (f & ts.TypeFlags.String) return want(typeof value === "string", "a string");
  if (f & ts.TypeFlags.Number) return want(typeof value === "number", "a number");
  if (f & ts.TypeFlags.Boolean) return want(typeof value === "boolean", "a boolean");
  if (f & ts.TypeFlags.Null) return want(value === null, "null");
  if (f & ts.TypeFlags.Undefined) return want(value === undefined, "nothing");
  if (checker.isArrayType(type)) {
    if (!Array.isArray(value)) return want(false, "an array");
    const el = checker.getTypeArguments(type)[0];
    value.slice(0, 5).forEach((v, i) => check(el, v, `${path}[${i}]`, depth + 1, errs));
    return;
  }
  if (f & ts.TypeFlags.Object) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return want(false, "an object");
    for (const p of checker.getPropertiesOfType(type)) {
      const v = value[p.name];
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
      if (v === undefined) {
        if (!optional) errs.push(`${path ? path + "." : ""}${p.name}: missing`);
        continue;
      }
      check(checker.getTypeOfSymbolAtLocation(p, sf), v, `${path ? path + "." : ""}${p.name}`, depth + 1, errs);
    }
    for (const info of checker.getIndexInfosOfType(type)) {
      for (const [k, v] of Object.entries(value).slice(0, 5)) {
        if (!checker.getPropertyOfType(type, k)) check(info.type, v, `${path}[${JSON.stringify(k)}]`, depth + 1, errs);
      }
    }
  }
}

// The instances of the SDK's classes reachable from a client, by class
// name.
function instances(root) {
  const out = new Map();
  const queue = [root];
  while (queue.length) {
    const o = queue.shift();
    if (!o || typeof o !== "object" || out.has(o.constructor.name)) continue;
    out.set(o.constructor.name, o);
    const names = new Set(Object.keys(o));
    for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (d.get) names.add(k);
    }
    for (const k of names) {
      if (k.startsWith("_") || k === "client") continue;
      try { queue.push(o[k]); } catch { /* a getter that needs more */ }
    }
  }
  return out;
}

async function json(method, path, body) {
  const r = await fetch(SERVER_URL + path, { method, headers: { ...auth, "Content-Type": "application/json" }, body: body && JSON.stringify(body) });
  return r.json();
}

// Events: session.idle must follow each prompt.
const seen = new Set();
const ac = new AbortController();
const events = (async () => {
  const r = await fetch(SERVER_URL + "/event", { headers: auth, signal: ac.signal });
  const rd = r.body.getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await rd.read();
    if (done) return;
    buf += new TextDecoder().decode(value);
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of frame.split("\n")) if (line.startsWith("data: ")) {
        try { seen.add(JSON.parse(line.slice(6)).type); } catch { /* not JSON */ }
      }
    }
  }
})().catch(() => {});

const main = await json("POST", "/session", { title: "contract" });
await json("POST", `/session/${main.id}/message`, { parts: [{ type: "text", text: "first" }] });
const msgs = await json("GET", `/session/${main.id}/message`);
const firstMessage = msgs[0]?.info?.id;

const v1sdk = await import(pathToFileURL(join(SDK_DIR, "dist/index.js")));
const v2sdk = await import(pathToFileURL(join(SDK_DIR, "dist/v2/index.js")));
const clients = {
  v1: instances(v1sdk.createOpencodeClient({ baseUrl: SERVER_URL, headers: auth })),
  v2: instances(v2sdk.createOpencodeClient({ baseUrl: SERVER_URL, headers: auth })),
};

// What each call sends: v2 methods take one flat object, v1 methods
// {path, query, body}. A call that removes or stops something gets a
// session of its own.
const parts = [{ type: "text", text: "hello" }];
function params(v, r, sessionID) {
  const own = { "Session.delete": true, "Session2.delete": true, "Session.abort": true, "Session2.abort": true };
  const sid = own[`${r.class}.${r.method}`] ? sessionID() : main.id;
  const ids = { sessionID: sid, id: sid, messageID: firstMessage, partID: "prt_none", requestID: "per_none", permissionID: "per_none",
    providerID: "fake", projectID: "prj_none", ptyID: "pty_none", name: "none", integrationID: "none", attemptID: "none", credentialID: "none" };
  const isShell = r.method === "shell";
  const body = { parts, title: "from the contract", command: isShell ? "echo hi" : "greet", arguments: "Ada", agent: "build",
    providerID: "fake", modelID: "fake-model", service: "contract", level: "info", message: "hello", response: "once", reply: "once", answers: [["x"]] };
  const query = { path: r.path === "/file" ? "" : "main.go", pattern: "hello", query: "main" };
  if (r.path === "/experimental/tool") Object.assign(query, { provider: "fake", model: "fake-model" });
  if (r.method === "revert") body.messageID = firstMessage;
  if (v === "v2") return { ...query, ...body, ...ids };
  const path = {};
  for (const m of r.path.matchAll(/\{(\w+)\}/g)) path[m[1]] = ids[m[1]];
  return r.verb === "GET" || r.verb === "DELETE" ? { path, query } : { path, query, body };
}

// idle waits until the session's loop has stopped, so the next call does
// not find it busy.
async function idle(id) {
  for (let i = 0; i < 200; i++) {
    const st = await json("GET", "/session/status");
    if (!st[id]) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Statuses a call may answer besides 2xx: the dummy pending requests are
// not found.
const expected = { "/permission/{requestID}/reply": [404], "/session/{id}/permissions/{permissionID}": [404], "/session/{sessionID}/permissions/{permissionID}": [404],
  "/question/{requestID}/reply": [404], "/question/{requestID}/reject": [404] };

const report = [];
for (const v of ["v1", "v2"]) {
  for (const [i, r] of routes[v].entries()) {
    const entry = { client: v, sdk: `${r.class}.${r.method}`, route: `${r.verb} ${r.path}`, status: 0, failures: [] };
    report.push(entry);
    try {
      await idle(main.id);
      if (r.stream) {
        const ac2 = new AbortController();
        const url = r.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === "sessionID" || k === "id" ? main.id : "none"));
        const res = await fetch(SERVER_URL + url, { headers: auth, signal: ac2.signal });
        entry.status = res.status;
        if (res.status === 200) {
          const { value } = await res.body.getReader().read();
          const first = new TextDecoder().decode(value);
          if (!first.startsWith("data: ")) entry.failures.push(`the stream does not start with an event: ${first.slice(0, 80)}`);
        } else {
          entry.body = (await res.text()).slice(0, 300);
        }
        ac2.abort();
      } else {
        const inst = clients[v].get(r.class);
        if (!inst || typeof inst[r.method] !== "function") { entry.failures.push("the SDK method is not reachable"); continue; }
        const own = [];
        const p = params(v, r, () => { own.push(1); return null; });
        if (own.length) {
          const s = await json("POST", "/session", { title: "to remove" });
          if (v === "v2") p.sessionID = s.id; else p.path.id = s.id;
        }
        const res = await inst[r.method](p);
        entry.status = res.response?.status ?? 0;
        const data = res.data ?? res.error;
        if (entry.status >= 400) entry.body = JSON.stringify(data)?.slice(0, 300);
        if (entry.status >= 200 && entry.status < 300) {
          const t = aliases.get(`${v}_${i}`);
          if (t && entry.status === 200) check(t, data, "", 0, entry.failures);
        }
      }
      if (entry.status === 404 && !(expected[r.path] || []).includes(404)) entry.failures.push("404: the route is not served");
      if (entry.status === 405) entry.failures.push("405: the method is not served");
      if (entry.status === 501 && !/UnsupportedError/.test(entry.body || "")) entry.failures.push("501 without an UnsupportedError body");
      if (entry.status === 501) entry.unsupported = true;
      if (entry.status >= 400 && ![404, 501].includes(entry.status) && !(expected[r.path] || []).includes(entry.status)) entry.failures.push(`status ${entry.status}: ${entry.body}`);
    } catch (e) {
      entry.failures.push(`the call failed: ${e}`);
    }
  }
}
await new Promise((r) => setTimeout(r, 300));
ac.abort();
await events;
const out = { report, events: [...seen].sort(), sessionIdle: seen.has("session.idle") };
process.stdout.write(JSON.stringify(out) + "\n");
