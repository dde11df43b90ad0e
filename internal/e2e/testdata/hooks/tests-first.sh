#!/bin/sh
# Stop: refuse to stop once, so the agent runs the tests; let it stop when
# it is already continuing because of this hook.
input=$(cat)
case "$input" in
*'"stop_hook_active":true'*) exit 0 ;;
esac
echo "the tests have not run yet: run them before you finish" >&2
exit 2
