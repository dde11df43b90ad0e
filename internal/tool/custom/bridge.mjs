// codeloop's bridge to OpenCode's JavaScript and TypeScript custom tools.
//
//   <runtime> bridge.mjs schema <file>          prints [{export, description, schema}] as JSON
//   <runtime> bridge.mjs call <file> <export>   reads the arguments as JSON on standard input,
//                                               runs execute(args, context), prints the result
//
// A tool file exports tool definitions: objects with a description, args
// (a map of zod-like schemas) and execute. When the package
// @opencode-ai/plugin is not installed where the file can import it, the
// runtime maps it to shim.mjs, which takes the tool() helper this file
// puts on globalThis.

import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import process from "node:process";

const [mode, file, exportName] = process.argv.slice(2);

function fail(msg) {
  process.stderr.write(String(msg) + "\n");
  process.exit(1);
}

// packageDir finds a package as the tool file's imports would: in
// node_modules of the file's directory and each one above it.
function packageDir(pkg) {
  for (let d = path.dirname(path.resolve(file)); ; d = path.dirname(d)) {
    const dir = path.join(d, "node_modules", pkg);
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(d) === d) return "";
  }
}

// esmEntry is the file a package's "import" export names, so that the
// bridge loads the same module instance as the tool file's import does;
// "" when the package is not installed.
function esmEntry(pkg) {
  const dir = packageDir(pkg);
  if (!dir) return "";
  try {
    const json = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    let entry = json.exports?.["."] ?? json.exports;
    for (let i = 0; i < 4 && entry && typeof entry === "object"; i++) {
      entry = entry.import ?? entry.default ?? entry.node;
    }
    if (typeof entry === "string") return path.join(dir, entry);
    if (typeof json.module === "string") return path.join(dir, json.module);
    if (typeof json.main === "string") return path.join(dir, json.main);
  } catch {
    // an unreadable package.json: try index.js
  }
  return path.join(dir, "index.js");
}

async function importFrom(pkg) {
  const p = esmEntry(pkg);
  if (!p) return null;
  try {
    return await import(pathToFileURL(p).href);
  } catch {
    return null;
  }
}

// --- a minimal zod-compatible schema builder, for when zod is absent ---

class Schema {
  constructor(json, optional = false) {
    this._json = json;
    this._optional = optional;
  }
  _with(extra, optional = this._optional) {
    return new Schema({ ...this._json, ...extra }, optional);
  }
  describe(description) { return this._with({ description }); }
  optional() { return new Schema(this._json, true); }
  nullable() { return this._with({ nullable: true }); }
  default(value) { return new Schema({ ...this._json, default: value }, true); }
  min(n) { return this._with(this._json.type === "string" ? { minLength: n } : this._json.type === "array" ? { minItems: n } : { minimum: n }); }
  max(n) { return this._with(this._json.type === "string" ? { maxLength: n } : this._json.type === "array" ? { maxItems: n } : { maximum: n }); }
  int() { return this._with({ type: "integer" }); }
  toJSONSchema() { return { ...this._json }; }
}

function objectJSON(shape) {
  const properties = {};
  const required = [];
  for (const [key, s] of Object.entries(shape)) {
    properties[key] = toJSON(s);
    if (!isOptional(s)) required.push(key);
  }
  const out = { type: "object", properties };
  if (required.length) out.required = required;
  return out;
}

const mini = {
  string: () => new Schema({ type: "string" }),
  number: () => new Schema({ type: "number" }),
  boolean: () => new Schema({ type: "boolean" }),
  any: () => new Schema({}),
  unknown: () => new Schema({}),
  enum: (values) => new Schema({ type: "string", enum: [...values] }),
  literal: (value) => new Schema({ const: value }),
  array: (item) => new Schema({ type: "array", items: toJSON(item) }),
  object: (shape) => new Schema(objectJSON(shape)),
};

// --- zod or the minimal builder to JSON Schema ---

let zod = null;

function isOptional(s) {
  if (s instanceof Schema) return s._optional;
  if (s && typeof s.isOptional === "function") {
    try { return s.isOptional(); } catch { /* fall through */ }
  }
  const t = s?._zod?.def?.type ?? s?._def?.typeName;
  return t === "optional" || t === "default" || t === "ZodOptional" || t === "ZodDefault";
}

function toJSON(s) {
  if (s instanceof Schema) return s.toJSONSchema();
  if (zod && typeof zod.toJSONSchema === "function" && s && (s._zod || s._def)) {
    const out = zod.toJSONSchema(s, { io: "input", unrepresentable: "any" });
    delete out.$schema;
    return out;
  }
  if (s && typeof s === "object" && !s._def && !s._zod) return s; // plain JSON Schema
  throw new Error("an argument's schema is neither zod (v4) nor JSON Schema");
}

// --- the tool() helper of @opencode-ai/plugin ---

function makeTool(schema) {
  const tool = (def) => def;
  tool.schema = schema;
  return tool;
}

function isTool(v) {
  return v && typeof v === "object" && typeof v.execute === "function" && typeof v.description === "string";
}

// provideShim makes the bare import "@opencode-ai/plugin" resolve to
// shim.mjs in the runtimes that allow it (node's module hooks, bun's
// virtual modules).
async function provideShim() {
  const shim = new URL("./shim.mjs", import.meta.url).href;
  if (typeof Bun !== "undefined") {
    Bun.plugin({
      name: "codeloop-opencode-plugin",
      setup(build) {
        build.module("@opencode-ai/plugin", () => ({
          exports: { tool: globalThis.__codeloopTool, default: { tool: globalThis.__codeloopTool } },
          loader: "object",
        }));
      },
    });
    return;
  }
  if (typeof Deno !== "undefined") return;
  const { register } = await import("node:module");
  if (typeof register !== "function") return;
  const hooks = `export async function resolve(spec, ctx, next) {
    try { return await next(spec, ctx); } catch (err) {
      if (spec === "@opencode-ai/plugin") return { url: ${JSON.stringify(shim)}, shortCircuit: true };
      throw err;
    }
  }`;
  register("data:text/javascript," + encodeURIComponent(hooks));
}

async function loadModule() {
  const zodModule = await importFrom("zod");
  zod = zodModule ? (zodModule.z ?? zodModule.default ?? zodModule) : null;
  if (packageDir("@opencode-ai/plugin")) {
    const plugin = await importFrom("@opencode-ai/plugin");
    zod ??= plugin?.tool?.schema ?? null;
  } else {
    globalThis.__codeloopTool = makeTool(zod ?? mini);
    await provideShim();
  }
  return await import(pathToFileURL(path.resolve(file)).href);
}

function argsSchema(args) {
  if (!args) return { type: "object", properties: {} };
  if (args._zod || args._def || args instanceof Schema) return toJSON(args);
  const out = { type: "object", properties: {} };
  const required = [];
  for (const [key, s] of Object.entries(args)) {
    out.properties[key] = toJSON(s);
    if (!isOptional(s)) required.push(key);
  }
  if (required.length) out.required = required;
  return out;
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

async function main() {
  if (!file || (mode !== "schema" && mode !== "call")) fail("usage: bridge.mjs schema|call <file> [export]");
  const mod = await loadModule();
  if (mode === "schema") {
    const out = [];
    for (const [name, value] of Object.entries(mod)) {
      if (!isTool(value)) continue;
      out.push({ export: name, description: value.description, schema: argsSchema(value.args) });
    }
    process.stdout.write(JSON.stringify(out));
    return;
  }
  const def = mod[exportName];
  if (!isTool(def)) fail(`${file} exports no tool named ${exportName}`);
  const text = (await readStdin()).trim();
  let args = text ? JSON.parse(text) : {};
  const zodArgs = def.args && (def.args._zod || Object.values(def.args).every((v) => v && v._zod));
  if (zodArgs && zod && typeof zod.object === "function") {
    try {
      const shape = def.args._zod || def.args._def ? def.args : zod.object(def.args);
      args = shape.parse(args);
    } catch (err) {
      fail(`invalid arguments: ${err.message}`);
    }
  }
  const abort = new AbortController();
  process.on("SIGTERM", () => abort.abort());
  const context = {
    sessionID: process.env.CODELOOP_SESSION_ID ?? "",
    messageID: process.env.CODELOOP_CALL_ID ?? "",
    callID: process.env.CODELOOP_CALL_ID ?? "",
    agent: process.env.CODELOOP_AGENT ?? "build",
    directory: process.cwd(),
    worktree: process.env.CODELOOP_PROJECT_DIR ?? process.cwd(),
    abort: abort.signal,
    metadata() {},
  };
  // What the tool logs goes to standard error: standard output is its result.
  const log = (...a) => process.stderr.write(a.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(" ") + "\n");
  console.log = console.info = console.debug = log;
  const result = await def.execute(args, context);
  const out = typeof result === "string" ? result : result && typeof result.output === "string" ? result.output : JSON.stringify(result ?? "");
  process.stdout.write(out);
}

main().then(
  () => process.exit(0),
  (err) => fail(err && err.stack ? err.stack : err),
);
