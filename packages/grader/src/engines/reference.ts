// The reference engine: applies the task's verified fix (held-out/golden.patch under --tasks <dir>) and reports a plausible
// trace. It is an oracle for demos and tests: it shows what a resolved trial looks like, and it is honest about being one.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionValue, startTrial, traceWriter } from './engine-kit.js';

const argv = process.argv.slice(2);
const input = startTrial(argv);
const tasksDir = optionValue(argv, '--tasks');
if (!tasksDir) {
  process.stderr.write('reference engine: needs --tasks <dir> holding <task>/held-out/golden.patch\n');
  process.exit(2);
}
const trace = traceWriter(input.traceFile);
const started = Date.now();
trace.emit({ kind: 'run.start', engine: 'reference/1.0.0', model: input.model, task: input.task, config: {} });
const patchFile = join(tasksDir, input.task, 'held-out', 'golden.patch');
trace.emit({
  kind: 'model.call',
  tokens: { input: 1800 + input.prompt.length, output: 240, cacheRead: 0, cacheWrite: 0 },
});
if (!existsSync(patchFile)) {
  process.stderr.write(`reference engine: no golden patch at ${patchFile}\n`);
  trace.emit({
    kind: 'run.end',
    outcome: 'unresolved',
    wallClockMs: Date.now() - started,
    tokens: { ...trace.totals },
  });
  process.exit(1);
}
const patch = readFileSync(patchFile, 'utf8');
execFileSync('git', ['apply', '--whitespace=nowarn', '-'], { cwd: input.workspace, input: patch });
trace.emit({
  kind: 'tool.call',
  tool: 'apply_patch',
  args: { bytes: patch.length },
  diffBytes: Buffer.byteLength(patch),
});
trace.emit({ kind: 'model.call', tokens: { input: 600, output: 80, cacheRead: 1800, cacheWrite: 0 } });
trace.emit({ kind: 'run.end', outcome: 'resolved', wallClockMs: Date.now() - started, tokens: { ...trace.totals } });
process.stdout.write(`applied the verified fix for ${input.task}\n`);
