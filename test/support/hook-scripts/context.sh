#!/usr/bin/env bash
# Prints plain text: Claude Code reads it as additional context for the model.
tool="$(cat | sed -n 's/.*"tool_name":"\([^"]*\)".*/\1/p')"
echo "Style guide applies to ${tool} in ${PWD}"
