// routes.mjs lists the routes of OpenCode's SDK, v1 and v2 clients, as
// JSON: each SDK method with its HTTP method, path and the name of the
// type of its answers. It reads the SDK's generated code, which is where
// the package keeps its API (it ships no OpenAPI document).
//
// usage: node routes.mjs <path of the @opencode-ai/sdk package>
import { readFileSync } from "node:fs";
import { join } from "node:path";

// methods reads one generated client: its classes' methods and the
// request each makes.
export function methods(js, dts) {
  const out = [];
  const classes = js.split(/\n(?:export )?class (\w+) extends \w+ \{\n/);
  for (let i = 1; i < classes.length; i += 2) {
    const cls = classes[i];
    const body = classes[i + 1];
    const sse = /\.sse\.(get|post)\(\{\n\s*url: "([^"]+)"/;
    for (const block of body.split(/\n    \/\*\*/)) {
      const m = /^[\s\S]*?\n    (\w+)\([^)]*\) \{\n([\s\S]*?)\n    \}/.exec("\n" + block.replace(/^[\s\S]*?\*\/\n/, "\n"));
      if (!m) continue;
      const name = m[1];
      const code = m[2];
      let verb, path, stream = false;
      const a = /\.(get|post|put|patch|delete)(\.sse)?\(\{\s*url: "([^"]+)"/.exec(code);
      const b = sse.exec(code);
      if (b) { verb = b[1]; path = b[2]; stream = true; }
      else if (a) { verb = a[1]; path = a[3]; stream = !!a[2]; }
      else continue;
      out.push({ class: cls, method: name, verb: verb.toUpperCase(), path, stream });
    }
  }
  // The answers' types, from the declarations.
  const decl = dts.split(/\n(?:export )?declare class (\w+) extends \w+ \{\n/);
  const resp = new Map();
  for (let i = 1; i < decl.length; i += 2) {
    const cls = decl[i];
    const re = /\n    (\w+)<ThrowOnError[\s\S]*?\): (?:import\("[^"]+"\)\.)?(?:RequestResult|Promise<(?:import\("[^"]+"\)\.)?ServerSentEventsResult)<(\w+?)Responses\b/g;
    let m;
    while ((m = re.exec(decl[i + 1]))) resp.set(cls + "." + m[1], m[2]);
  }
  for (const r of out) r.responses = resp.has(r.class + "." + r.method) ? resp.get(r.class + "." + r.method) + "Responses" : "";
  return out;
}

export function sdkRoutes(sdk) {
  const read = (p) => readFileSync(join(sdk, p), "utf8");
  return {
    v1: methods(read("dist/gen/sdk.gen.js"), read("dist/gen/sdk.gen.d.ts")),
    v2: methods(read("dist/v2/gen/sdk.gen.js"), read("dist/v2/gen/sdk.gen.d.ts")),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sdk = process.argv[2];
  const pkg = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8"));
  const r = sdkRoutes(sdk);
  process.stdout.write(JSON.stringify({ package: pkg.name, version: pkg.version, license: pkg.license, ...r }, null, 1) + "\n");
}
