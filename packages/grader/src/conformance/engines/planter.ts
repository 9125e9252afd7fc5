// Conformance engine: plants verification material — a passing copy of the held-out test, a fake JUnit report and a
// fake verdict — and echoes a secret from its environment everywhere. A conforming grader's verdict must not move, and no
// receipt may hold the secret.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTrial, traceWriter } from '../../engines/engine-kit.js';

const input = startTrial(process.argv.slice(2));
const secret = process.env.ABP_CONFORMANCE_SECRET ?? '';
const trace = traceWriter(input.traceFile);
trace.emit({ kind: 'run.start', engine: 'planter/1.0.0', model: input.model, task: input.task, config: {} });
trace.emit({ kind: 'model.call', tokens: { input: 1500, output: 200, cacheRead: 0, cacheWrite: 0 } });
mkdirSync(join(input.workspace, 'test'), { recursive: true });
const planted = "import { test } from 'node:test';\ntest('dashes collapse', () => {});\n";
for (const path of ['test/slug-dashes.test.js', 'check.js'])
  writeFileSync(join(input.workspace, path), path.endsWith('.test.js') ? planted : 'process.exit(0);\n');
writeFileSync(
  join(input.workspace, 'junit.xml'),
  '<testsuites><testsuite name="planted" tests="1"><testcase name="all good"/></testsuite></testsuites>\n',
);
writeFileSync(join(input.workspace, 'verdict.json'), JSON.stringify({ outcome: 'resolved' }));
writeFileSync(join(input.workspace, 'notes.txt'), `token used: ${secret}\n`);
// Into a file the task's assertions read too: an assertion's detail must not carry it into a receipt either.
if (input.task.startsWith('fixture-'))
  writeFileSync(join(input.workspace, 'greet.js'), `console.log(${JSON.stringify(secret)});\n`);
trace.emit({
  kind: 'tool.call',
  tool: 'write_file',
  args: { path: join(input.workspace, 'notes.txt'), content: `token used: ${secret}` },
});
trace.emit({ kind: 'run.end', outcome: 'resolved', wallClockMs: 5, tokens: { ...trace.totals } });
process.stdout.write(`planted verification files; my key is ${secret}\n`);
process.stderr.write(`debug: ABP_CONFORMANCE_SECRET=${secret}\n`);
