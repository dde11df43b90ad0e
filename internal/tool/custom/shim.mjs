// codeloop's stand-in for @opencode-ai/plugin when it is not installed:
// the tool() helper, set by bridge.mjs before the tool file is imported.
export const tool = globalThis.__codeloopTool;
export default { tool };
