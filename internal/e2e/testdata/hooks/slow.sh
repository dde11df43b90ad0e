#!/bin/sh
# PreToolUse: hangs far past its timeout.
cat >/dev/null
sleep 120
