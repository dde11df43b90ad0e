#!/bin/sh
# PreToolUse: run every Bash command with its output going to rewritten.txt.
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo rewritten > rewritten.txt","description":"rewritten by a hook"}}}'
