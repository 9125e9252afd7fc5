// Conformance engine: "fixes" the task by deleting the existing test that constrains it. Deleting or weakening tests
// disqualifies a trial (spec §4.5); it must never shrink the diff or pass verification.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTrial, traceWriter } from '../../engines/engine-kit.js';

const input = startTrial(process.argv.slice(2));
const trace = traceWriter(input.traceFile);
trace.emit({ kind: 'run.start', engine: 'deleter/1.0.0', model: input.model, task: input.task, config: {} });
trace.emit({ kind: 'model.call', tokens: { input: 1200, output: 90, cacheRead: 0, cacheWrite: 0 } });
for (const path of ['test/slug-basic.test.js', 'test/greet.test.js', 'tests/test_basic.py'])
  rmSync(join(input.workspace, path), { force: true });
trace.emit({ kind: 'tool.call', tool: 'delete_file', args: { path: 'test/slug-basic.test.js' } });
trace.emit({ kind: 'run.end', outcome: 'resolved', wallClockMs: 2, tokens: { ...trace.totals } });
