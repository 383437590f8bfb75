#!/usr/bin/env bash
# A broken hook: it dies with exit code 3.
cat > /dev/null
echo "hook crashed: cannot reach the policy server" >&2
exit 3
