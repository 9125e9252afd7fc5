// The no-op engine: reads the task, asks its model once, changes nothing. The floor every engine should beat, and the
// control that shows a grader does not resolve tasks on its own.
import { startTrial, traceWriter } from './engine-kit.js';

const input = startTrial(process.argv.slice(2));
const trace = traceWriter(input.traceFile);
const started = Date.now();
trace.emit({ kind: 'run.start', engine: 'noop/1.0.0', model: input.model, task: input.task, config: {} });
trace.emit({
  kind: 'model.call',
  tokens: { input: 900 + input.prompt.length, output: 12, cacheRead: 0, cacheWrite: 0 },
});
trace.emit({ kind: 'run.end', outcome: 'unresolved', wallClockMs: Date.now() - started, tokens: { ...trace.totals } });
process.stdout.write('no changes\n');
