#!/bin/sh
# PreToolUse: refuse rm -rf, with the reason on standard error.
input=$(cat)
case "$input" in
*'rm -rf'*)
	echo "rm -rf is not allowed in this repository; delete files one by one" >&2
	exit 2
	;;
esac
exit 0
