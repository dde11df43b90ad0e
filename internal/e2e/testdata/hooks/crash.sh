#!/bin/sh
# A custom tool that crashes.
if [ "$1" = "--schema" ]; then
	echo '{"description": "Migrate the database."}'
	exit 0
fi
echo "panic: database is locked" >&2
kill -SEGV $$
