// `abp conformance`: the public conformance suite, run through the real grader, with its receipts (spec §9).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { runConformance } from '../conformance/run-conformance.js';
import { CommandFailed, createOutput } from './output.js';

export async function conformanceCommand(options: { output?: string; json?: boolean }): Promise<void> {
  const out = createOutput(options);
  const output = resolve(options.output ?? (await mkdtemp(join(tmpdir(), 'abp-conformance-'))));
  const report = await runConformance({ output, onLine: (line) => out.line(line) });
  for (const check of report.checks)
    out.line(`${check.passed ? 'pass' : 'FAIL'}  ${check.level.padEnd(10)} ${check.id}: ${check.detail}`);
  const where = relative(process.cwd(), output) || '.';
  out.line(
    `\nconformance level demonstrated: ${report.level}\nreport:   ${join(where, 'conformance.json')}\nreceipts: ${join(where, report.results)}`,
  );
  out.data({ ...report, output });
  if (report.level === 'none')
    throw new CommandFailed(
      'conformance-failed',
      `the grader failed ABP-core checks: ${report.checks
        .filter((check) => !check.passed)
        .map((check) => check.id)
        .join(', ')}`,
      options.json === true,
    );
}
