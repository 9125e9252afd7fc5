#!/bin/sh
# Runs Codex (the command after the first argument, `codex exec …`) and, once it has ended, writes the session logs it
# kept under $CODEX_HOME/sessions (its "rollouts": every model response with its own usage) to the file the first
# argument names, where abp's codex-rollout translator reads the trial's trace. Exits as Codex did.
#   codex-exec.sh {traceFile} /path/to/codex exec [options] {prompt}
# Codex offers no flag that names the log's path, and its --json output gives usage per turn only.
set -u
trace=$1
shift
"$@"
status=$?
sessions="${CODEX_HOME:-$HOME/.codex}/sessions"
# One file per thread (a subagent writes its own), named by start time: their order is the order they began.
find "$sessions" -name 'rollout-*.jsonl' -type f 2>/dev/null | sort | while IFS= read -r log; do cat "$log"; done > "$trace"
exit "$status"
