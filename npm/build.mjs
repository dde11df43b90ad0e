#!/usr/bin/env node
// Generates codeloop's npm packages from GoReleaser's output:
//
//   node npm/build.mjs [DIST] [OUT]     (defaults: dist, npm/out)
//
// OUT/codeloop is the package users install (npx codeloop, npm i -g
// codeloop): a small launcher whose optional dependencies are one package
// per platform, OUT/codeloop-<os>-<cpu> (@codeloop/<os>-<cpu>), each
// carrying that platform's binary and limited to it by its os and cpu
// fields, so npm installs only the one that fits. The version is the
// release's, read from DIST/metadata.json.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.argv[2] ?? "dist");
const out = resolve(process.argv[3] ?? join(here, "out"));

const nodeOS = { linux: "linux", darwin: "darwin", windows: "win32" };
const nodeCPU = { amd64: "x64", arm64: "arm64" };

const metadata = JSON.parse(readFileSync(join(dist, "metadata.json"), "utf8"));
const version = metadata.version;
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
  throw new Error(`release version ${JSON.stringify(version)} is not a version npm accepts`);
}
const artifacts = JSON.parse(readFileSync(join(dist, "artifacts.json"), "utf8"));
const binaries = artifacts.filter((a) => a.type === "Binary" && nodeOS[a.goos] && nodeCPU[a.goarch]);
if (binaries.length === 0) {
  throw new Error(`${dist}/artifacts.json lists no binaries`);
}

const common = {
  version,
  homepage: "https://github.com/codeloop/codeloop",
  repository: { type: "git", url: "git+https://github.com/codeloop/codeloop.git" },
};
const readme = readFileSync(join(here, "..", "README.md"));

rmSync(out, { recursive: true, force: true });
const optional = {};
const supported = [];
for (const b of binaries.sort((x, y) => x.path.localeCompare(y.path))) {
  const os = nodeOS[b.goos];
  const cpu = nodeCPU[b.goarch];
  const name = `@codeloop/${os}-${cpu}`;
  const dir = join(out, `codeloop-${os}-${cpu}`);
  const exe = b.goos === "windows" ? "codeloop.exe" : "codeloop";
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(resolve(b.path), join(dir, "bin", exe));
  chmodSync(join(dir, "bin", exe), 0o755);
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe codeloop binary for ${os} on ${cpu}. Install \`codeloop\` instead.\n`);
  writeJSON(join(dir, "package.json"), {
    name,
    ...common,
    description: `The codeloop binary for ${os} ${cpu}`,
    os: [os],
    cpu: [cpu],
    files: ["bin/"],
    preferUnplugged: true,
  });
  optional[name] = version;
  supported.push(`${os}-${cpu}`);
}

const main = join(out, "codeloop");
mkdirSync(join(main, "bin"), { recursive: true });
const launcher = readFileSync(join(here, "templates", "codeloop.js"), "utf8").replace(
  "__SUPPORTED__",
  JSON.stringify(supported),
);
writeFileSync(join(main, "bin", "codeloop.js"), launcher);
chmodSync(join(main, "bin", "codeloop.js"), 0o755);
writeFileSync(join(main, "README.md"), readme);
writeJSON(join(main, "package.json"), {
  name: "codeloop",
  ...common,
  description: "An AI coding agent for the terminal",
  bin: { codeloop: "bin/codeloop.js" },
  files: ["bin/"],
  engines: { node: ">=16" },
  optionalDependencies: optional,
});

console.log(`npm packages for codeloop ${version} in ${out}: codeloop, ${Object.keys(optional).join(", ")}`);

function writeJSON(file, value) {
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}
