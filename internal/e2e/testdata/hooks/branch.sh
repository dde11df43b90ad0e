#!/bin/sh
# UserPromptSubmit: add the current branch to each prompt.
cat >/dev/null
echo "current branch: feature/hooks-e2e"
