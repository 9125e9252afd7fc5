// The scripted engine: behaves like a multi-agent engine without a model. It explores the workspace, fans out to a
// subagent on a smaller model to "run tests", applies the verified fix, and emits the abp-trace/v1 events a real
// orchestrator would: tool calls with argument summaries, per-call models, and nested subagent attribution.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { optionValue, startTrial, traceWriter } from './engine-kit.js';

const SMALL_MODEL = 'abp/demo-model-small';
const argv = process.argv.slice(2);
const input = startTrial(argv);
const tasksDir = optionValue(argv, '--tasks');
const trace = traceWriter(input.traceFile);
const started = Date.now();
const timed = <T>(work: () => T): [T, number] => {
  const t0 = Date.now();
  return [work(), Date.now() - t0];
};

trace.emit({
  kind: 'run.start',
  engine: 'scripted/1.0.0',
  model: input.model,
  task: input.task,
  config: { planner: 'fan-out' },
});
trace.emit({
  kind: 'model.call',
  model: input.model,
  tokens: { input: 2400, output: 310, cacheRead: 0, cacheWrite: 2400 },
});
const [files, listMs] = timed(() => readdirSync(input.workspace).filter((name) => name !== '.git'));
trace.emit({ kind: 'tool.call', tool: 'list_dir', args: { path: input.workspace }, durationMs: listMs });
for (const name of files.slice(0, 3)) {
  const path = join(input.workspace, name);
  if (!statSync(path).isFile()) continue;
  const [content, readMs] = timed(() => readFileSync(path, 'utf8'));
  trace.emit({ kind: 'tool.call', tool: 'read_file', args: { path, content }, durationMs: readMs });
}
trace.emit({
  kind: 'model.call',
  model: input.model,
  tokens: { input: 900, output: 420, cacheRead: 2400, cacheWrite: 0 },
});

trace.emit({ kind: 'subagent.start', id: 'sa-1', purpose: 'reproduce the failure' });
trace.emit({
  kind: 'model.call',
  model: SMALL_MODEL,
  subagent: 'sa-1',
  tokens: { input: 1200, output: 150, cacheRead: 0, cacheWrite: 0 },
});
const [status, statusMs] = timed(() =>
  execFileSync('git', ['status', '--short'], { cwd: input.workspace, encoding: 'utf8' }),
);
trace.emit({
  kind: 'tool.call',
  tool: 'run_command',
  subagent: 'sa-1',
  args: { argv: ['git', 'status', '--short'], output: status },
  durationMs: statusMs,
  exitCode: 0,
});
trace.emit({ kind: 'subagent.end', id: 'sa-1', durationMs: statusMs });

const patchFile = tasksDir ? join(tasksDir, input.task, 'held-out', 'golden.patch') : null;
if (patchFile && existsSync(patchFile)) {
  const patch = readFileSync(patchFile, 'utf8');
  execFileSync('git', ['apply', '--whitespace=nowarn', '-'], { cwd: input.workspace, input: patch });
  trace.emit({ kind: 'tool.call', tool: 'edit_file', args: { patch }, diffBytes: Buffer.byteLength(patch) });
}
trace.emit({
  kind: 'model.call',
  model: input.model,
  tokens: { input: 700, output: 260, cacheRead: 3300, cacheWrite: 0 },
});
trace.emit({
  kind: 'run.end',
  outcome: patchFile ? 'resolved' : 'unresolved',
  wallClockMs: Date.now() - started,
  tokens: { ...trace.totals },
});
process.stdout.write('done\n');
