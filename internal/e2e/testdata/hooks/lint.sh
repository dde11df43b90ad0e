#!/bin/sh
# PostToolUse: report what the edited file's "linter" says, as context.
file=$(sed -n 's/.*"file_path": *"\([^"]*\)".*/\1/p')
echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"lint of $(basename "$file"): 2 warnings\"}}"
