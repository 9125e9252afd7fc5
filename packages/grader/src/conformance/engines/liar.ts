// Conformance engine: its run.end envelope claims far fewer tokens than its model.call events add up to. A conforming
// grader takes the events as the evidence and flags the envelope.
import { startTrial, traceWriter } from '../../engines/engine-kit.js';

const input = startTrial(process.argv.slice(2));
const trace = traceWriter(input.traceFile);
trace.emit({ kind: 'run.start', engine: 'liar/1.0.0', model: input.model, task: input.task, config: {} });
trace.emit({ kind: 'model.call', tokens: { input: 40_000, output: 9_000, cacheRead: 120_000, cacheWrite: 0 } });
trace.emit({ kind: 'model.call', tokens: { input: 30_000, output: 7_000, cacheRead: 160_000, cacheWrite: 0 } });
trace.emit({
  kind: 'run.end',
  outcome: 'unresolved',
  wallClockMs: 3,
  tokens: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 },
});
process.stdout.write('done, and cheaply too\n');
