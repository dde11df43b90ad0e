#!/usr/bin/env python3
"""Counts the words of a text: a custom tool written in Python."""
import json
import sys

if sys.argv[1:] == ["--schema"]:
    print(json.dumps({
        "description": "Count the words of a text.",
        "schema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "the text"}},
            "required": ["text"],
        },
    }))
    sys.exit(0)

args = json.load(sys.stdin)
print(f"{len(args['text'].split())} words")
