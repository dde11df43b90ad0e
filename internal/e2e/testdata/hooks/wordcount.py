#!/usr/bin/env python3
"""A custom tool in Python: counts words."""
import json
import sys

if sys.argv[1:] == ["--schema"]:
    json.dump({"description": "Count the words of a text.",
               "schema": {"type": "object",
                          "properties": {"text": {"type": "string", "description": "the text to count"}},
                          "required": ["text"]}}, sys.stdout)
    sys.exit(0)
args = json.load(sys.stdin)
print(f"{len(args['text'].split())} words")
