"""A Hermes Agent shell hook (hermes-oneshot.sh configures it), run by the engine's own python: keeps what abp's
hermes-hooks translator reads of the JSON payload Hermes writes to its stdin, in a file of its own in the folder the
first argument names, named by the time it arrived.

A file per payload keeps payloads whole when hooks of several agents (a subagent's) fire at once. What is kept is
bounded: the model's response and the tool's output, which Hermes hands over too, are left out (a tool's exit code
alone is kept), and long strings in a tool's arguments are cut, so a long run's trace stays far below the grader's
bounds. Writes nothing to stdout: Hermes reads a hook's stdout as a decision, and this hook only records.
"""

import json
import os
import sys
import time

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
except (ValueError, AttributeError):
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
folder = sys.argv[1]
name = f"{time.time_ns():020d}-{os.getpid()}"
with open(os.path.join(folder, f".{name}"), "w", encoding="utf-8") as out:
    json.dump(record, out)
# Whole or not at all: the wrapper reads the folder once Hermes has ended, and skips names starting with a dot.
os.rename(os.path.join(folder, f".{name}"), os.path.join(folder, name))
