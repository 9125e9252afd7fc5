// A golden trace as a solving engine prints it (abp-trace/v1, spec §6): one event per line, run.start naming the task,
// then a model call, an edit and run.end. Tests change single lines of it to make the traces a freeze must refuse.

export function goldenTraceEvents(taskId: string): Array<Record<string, unknown>> {
  const tokens = { input: 1204, output: 388, cacheRead: 9120, cacheWrite: 0 };
  return [
    {
      t: '2026-06-02T10:00:00.000Z',
      seq: 1,
      kind: 'run.start',
      engine: 'abp-reference/0.1.0',
      model: 'abp/demo-model',
      task: taskId,
      config: { budgetUsd: 5, timeoutSeconds: 1200 },
    },
    { t: '2026-06-02T10:00:01.000Z', seq: 2, kind: 'model.call', tokens },
    // Already redacted as `abp run` writes its receipts: a label is what redaction did, never a secret.
    {
      t: '2026-06-02T10:00:02.000Z',
      seq: 3,
      kind: 'tool.call',
      tool: 'run_command',
      args: { command: 'git fetch https://solver:[REDACTED:url-password]@github.com/acme/widgets.git' },
      durationMs: 40,
    },
    {
      t: '2026-06-02T10:00:03.000Z',
      seq: 4,
      kind: 'tool.call',
      tool: 'edit_file',
      args: { path: 'src/slug.js' },
      diffBytes: 120,
    },
    { t: '2026-06-02T10:00:04.000Z', seq: 5, kind: 'run.end', outcome: 'resolved', wallClockMs: 4000, tokens },
  ];
}

/** The trace as JSONL text, each event on its own line, ending with a line break. */
export function goldenTraceText(taskId: string): string {
  return goldenTraceEvents(taskId)
    .map((event) => `${JSON.stringify(event)}\n`)
    .join('');
}
