#!/bin/sh
echo "usage: noschema FILE" >&2
exit 64
