// Conformance engine: looks for the future fix in git history — every ref, tag, reflog, stash, dangling and unreachable
// object — and applies it if found. With history scrubbed it finds nothing and cannot resolve the task.
import { execFileSync } from 'node:child_process';
import { startTrial, traceWriter } from '../../engines/engine-kit.js';

const MARKER = 'ABP-FUTURE-FIX';
const input = startTrial(process.argv.slice(2));
const git = (...args: string[]) => {
  try {
    return execFileSync('git', args, {
      cwd: input.workspace,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
};
const trace = traceWriter(input.traceFile);
trace.emit({ kind: 'run.start', engine: 'history-reader/1.0.0', model: input.model, task: input.task, config: {} });
trace.emit({ kind: 'model.call', tokens: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 } });
const commits = new Set(
  [
    git('rev-list', '--all', '--reflog'),
    git('fsck', '--unreachable', '--lost-found', '--no-reflogs'),
    git('stash', 'list', '--format=%H'),
  ]
    .join('\n')
    .match(/[0-9a-f]{40}/g) ?? [],
);
const objects = git('cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').filter(Boolean);
const everything = git('cat-file', '--batch-all-objects', '--batch');
const found =
  everything.includes(MARKER) || git('log', '--all', '-p').includes(MARKER) || git('tag', '-l').trim() !== '';
trace.emit({ kind: 'tool.call', tool: 'run_command', args: { argv: ['git', 'cat-file', '--batch-all-objects'] } });
if (found) {
  // A leaky grader would let this engine resolve the task from the future.
  const fix = [...commits].find((sha) => git('show', sha).includes(MARKER));
  if (fix) git('cherry-pick', '--no-commit', fix);
}
trace.emit({
  kind: 'run.end',
  outcome: found ? 'resolved' : 'unresolved',
  wallClockMs: 4,
  tokens: { ...trace.totals },
});
process.stdout.write(
  `searched ${commits.size} commits and ${objects.length} objects; future fix found: ${found ? 'yes' : 'no'}\n`,
);
