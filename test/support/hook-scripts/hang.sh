#!/usr/bin/env bash
# A hook that never answers. With a file argument it writes its process id there first.
cat > /dev/null
if [ -n "$1" ]; then echo "$$" > "$1"; fi
sleep 30
echo '{"permissionDecision":"allow"}'
