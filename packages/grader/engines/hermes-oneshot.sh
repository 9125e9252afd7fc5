#!/bin/sh
# Runs Hermes Agent once (`hermes -z`, the command that follows) so that its trace can be read, in the file the first
# argument names, for abp's hermes-hooks translator:
#   hermes-oneshot.sh {traceFile} [--note TEXT] /path/to/venv/bin/python3 /path/to/venv/bin/hermes -z {prompt} [options]
# Hermes records usage per model call only in what it hands its hooks (post_api_request), so this configures shell
# hooks in a Hermes home of the run's own (the engine's HOME is a fresh folder per trial), each appending what abp
# reads of its payload to the trace as it fires (hermes-hook.py): a run killed at its timeout leaves the calls it made.
# When Hermes ends, a line with its version and its usage report (--usage-file, the run's totals) follows. A note
# follows Hermes's default identity in SOUL.md, the start of its system prompt. Exits as Hermes did.
set -u
trace=$1
shift
note=
if [ "$1" = --note ]; then
  note=$2
  shift 2
fi
here=$(dirname "$0")
python=$1
# The hook's command line is quoted for YAML and then split by Hermes like a shell: paths holding quotes or backslashes
# would break it.
case "$here$python$trace" in
  *[\'\"\\]*) echo "hermes-oneshot.sh: a path holds a quote or a backslash, which the hook's command line cannot carry" >&2; exit 2 ;;
esac
export HERMES_HOME="${HERMES_HOME:-$HOME/.hermes}"
mkdir -p "$HERMES_HOME"
: > "$trace"
hook="'$python' '$here/hermes-hook.py' '$trace'"
cat > "$HERMES_HOME/config.yaml" <<YAML
hooks_auto_accept: true
hooks:
  post_api_request: [{command: "$hook"}]
  post_tool_call: [{command: "$hook"}]
  subagent_stop: [{command: "$hook"}]
YAML
if [ -n "$note" ]; then
  "$python" -c 'import sys; from hermes_cli.default_soul import DEFAULT_SOUL_MD; print(DEFAULT_SOUL_MD.rstrip() + "\n\n" + sys.argv[1])' \
    "$note" > "$HERMES_HOME/SOUL.md"
fi
usage="$HERMES_HOME/abp-usage.json"
"$@" --usage-file "$usage"
status=$?
"$python" - "$usage" >> "$trace" <<'PY'
import importlib.metadata, json, os, sys
line = {"hermes_version": importlib.metadata.version("hermes-agent")}
if os.path.exists(sys.argv[1]):
    with open(sys.argv[1], encoding="utf-8") as report:
        line["usage_report"] = json.load(report)
print(json.dumps(line))
PY
exit "$status"
