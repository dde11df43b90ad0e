// Package hook runs the user's hooks: commands that codeloop starts at
// points of a session (before and after each tool call, when a prompt is
// submitted, when the agent is about to stop, when a session starts or
// ends, before compaction, when a permission is asked) and whose exit
// status and output can block, change or add to what happens.
//
// Hooks are written in Claude Code's settings format, read unchanged from
// ~/.claude/settings.json, .claude/settings.json and
// .claude/settings.local.json, and from codeloop's config key "hooks" in
// the same shape. A hook reads Claude Code's JSON on standard input, with
// codeloop's tools under Claude Code's names (Bash, Read, Edit, ...) and
// their arguments in Claude Code's shape (file_path, old_string, ...), so
// scripts written for Claude Code run as they are.
//
// Hooks defined in the project's own files run only once the user trusts
// the project (package trust decides; Build is told).
//
// The package owns the hook events, their input and what hooks decide;
// the session engine runs them through a Runner (its Hooks interface),
// which the app builds from the config and the trust verdict. It knows
// nothing of sessions and imports proc only.
package hook
