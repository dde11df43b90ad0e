#!/bin/sh
# Greets someone: a custom tool written in shell.
if [ "$1" = "--schema" ]; then
	cat <<'JSON'
{"name": "greet", "description": "Greet someone by name.",
 "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
JSON
	exit 0
fi
input=$(cat)
name=$(printf '%s' "$input" | sed -n 's/.*"name": *"\([^"]*\)".*/\1/p')
printf 'hello, %s, from %s\n' "$name" "$(pwd)"
