#!/bin/sh
# A custom tool in shell: greets someone.
if [ "$1" = "--schema" ]; then
	echo '{"name": "greet", "description": "Greet someone by name.", "schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}'
	exit 0
fi
name=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p')
echo "hello, $name"
