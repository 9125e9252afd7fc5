"""A Hermes Agent shell hook (hermes-oneshot.sh configures it), run by the engine's own python: appends what abp's
hermes-hooks translator reads of the JSON payload Hermes writes to its stdin, as one line, to the trace file the first
argument names.

The line goes in one write to a file opened for appending, so lines of hooks that fire at once (a subagent's) never
interleave, and the trace holds every call made so far even when the run is killed at its timeout. What is kept is
bounded: the model's response and the tool's output, which Hermes hands over too, are left out (a tool's exit code
alone is kept), and long strings in a tool's arguments are cut, so a long run's trace stays far below the grader's
bounds. Writes nothing to stdout: Hermes reads a hook's stdout as a decision, and this hook only records.
"""

import json
import os
import sys

# The fields of a payload's "extra" that the translator reads.
KEEP = ("model", "provider", "response_model", "api_duration", "ended_at", "usage", "duration_ms", "child_session_id")
LONGEST = 4096


def bounded(value):
    if isinstance(value, str) and len(value) > LONGEST:
        return value[:LONGEST] + f"... [{len(value) - LONGEST} characters cut]"
    if isinstance(value, dict):
        return {key: bounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [bounded(item) for item in value]
    return value


payload = json.load(sys.stdin)
extra = payload.get("extra") or {}
kept = {key: extra[key] for key in KEEP if key in extra}
try:
    exit_code = json.loads(extra.get("result") or "{}").get("exit_code")
except (ValueError, AttributeError, TypeError):
    exit_code = None
if isinstance(exit_code, int):
    kept["exit_code"] = exit_code
record = {
    "hook_event_name": payload.get("hook_event_name"),
    "tool_name": payload.get("tool_name"),
    "tool_input": bounded(payload.get("tool_input")),
    "session_id": payload.get("session_id"),
    "extra": kept,
}
line = (json.dumps(record) + "\n").encode("utf-8")
trace = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
try:
    os.write(trace, line)
finally:
    os.close(trace)
