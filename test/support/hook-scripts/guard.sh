#!/usr/bin/env bash
# A PreToolUse hook as written for Claude Code: it blocks `rm -rf` with exit code 2 and the
# reason on stderr, and approves everything else in Claude Code's hookSpecificOutput shape.
input="$(cat)"
if printf '%s' "$input" | grep -q '"command":"[^"]*rm -rf'; then
  echo "Blocked by guard.sh: rm -rf is not allowed here" >&2
  exit 2
fi
cat <<'JSON'
{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"guard.sh approved it"}}
JSON
