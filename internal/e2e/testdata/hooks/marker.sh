#!/bin/sh
# PreToolUse: leaves a marker so a test can tell the hook ran.
cat >/dev/null
echo ran >> "$CLAUDE_PROJECT_DIR/hook-ran.txt"
