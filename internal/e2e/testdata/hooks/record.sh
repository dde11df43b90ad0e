#!/bin/sh
# Any event: append the hook's input, on one line, to $HOME/hooks.log. At
# SessionStart, also give the model some context.
input=$(cat)
printf '%s\n' "$input" | tr -d '\n' >> "$HOME/hooks.log"
echo >> "$HOME/hooks.log"
case "$input" in
*'"SessionStart"'*) echo "session context: started fresh" ;;
esac
