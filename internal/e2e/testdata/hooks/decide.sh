#!/bin/sh
# PreToolUse: deny commands that mention curl, allow everything else, in
# Claude Code's JSON output.
input=$(cat)
case "$input" in
*curl*)
	echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no network from this repository"}}'
	;;
*)
	echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
	;;
esac
