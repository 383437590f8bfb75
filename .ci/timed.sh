# Sourced by the .ci scripts: `timed LABEL COMMAND...` runs COMMAND and logs its wall time.
# A failing COMMAND ends the script (set -e) after a line naming the phase that failed.
timed() {
  local label=$1 start=$SECONDS status=0
  shift
  echo "==> $label"
  "$@" || status=$?
  if ((status != 0)); then
    echo "==> $label: FAILED (exit $status) after $((SECONDS - start)) s"
    return "$status"
  fi
  echo "==> $label: $((SECONDS - start)) s"
}
