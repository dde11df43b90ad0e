#!/bin/sh
# Takes longer than it may.
if [ "$1" = "--schema" ]; then
	echo '{"description": "Sleeps.", "timeout": 0.3}'
	exit 0
fi
sleep 300
