#!/bin/sh
# Fails every call.
if [ "$1" = "--schema" ]; then
	echo '{"description": "Always fails."}'
	exit 0
fi
echo "database is locked" >&2
exit 3
