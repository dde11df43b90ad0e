#!/usr/bin/env node
// Launcher of the codeloop npm package: finds the binary in the package
// for this platform (an optional dependency, @codeloop/<os>-<cpu>) and
// runs it with this process's arguments, streams and exit status.
"use strict";

const { spawn } = require("child_process");

const SUPPORTED = __SUPPORTED__;

function binaryPath() {
  const key = `${process.platform}-${process.arch}`;
  const pkg = `@codeloop/${key}`;
  const exe = process.platform === "win32" ? "codeloop.exe" : "codeloop";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch (err) {
    if (!SUPPORTED.includes(key)) {
      fail(`codeloop has no build for ${key}; builds exist for ${SUPPORTED.join(", ")}`);
    }
    fail(
      `the package ${pkg} that carries codeloop for this platform is not installed ` +
        `(was it installed with --omit=optional or --no-optional?); reinstall with: npm install -g codeloop`,
    );
  }
}

function fail(msg) {
  process.stderr.write(`codeloop: ${msg}\n`);
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: false });

// The terminal sends Ctrl-C to codeloop itself; the launcher only waits.
process.on("SIGINT", () => {});
for (const sig of ["SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}

child.on("error", (err) => fail(`running ${child.spawnfile}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
