// Reading the report a plan names: a missing one is no-report, an unreadable one names its file (among many, the one at
// fault), one past the size limit is refused by its size before it is read, and stdout cut at the output limit is
// never taken as a whole report.
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_REPORT_BYTES,
  PlannedReportError,
  readPlannedReport,
  type PlannedReportErrorCode,
} from '../../src/verification/planned-report.js';

let checkout: string;
const quiet = { stdout: Buffer.alloc(0), stdoutTruncated: false, stderr: '' };
const place = () => ({ checkout, hostPath: (path: string) => path });
const suite = (name: string) => `<testsuite name="s"><testcase classname="C" name="${name}"/></testsuite>`;

beforeAll(async () => {
  checkout = await mkdtemp(join(tmpdir(), 'abp-planned-report-'));
});
afterAll(async () => {
  await rm(checkout, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<{ code: PlannedReportErrorCode; message: string }> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PlannedReportError)) throw new Error(`expected a PlannedReportError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('readPlannedReport', () => {
  it('reads a file report, and calls a missing one no-report naming where it was looked for', async () => {
    const path = join(checkout, 'junit.xml');
    await writeFile(path, suite('adds'));
    const report = await readPlannedReport({ format: 'junit-xml', source: { kind: 'file', path } }, quiet, place());
    expect(report.tests.map((test) => test.id)).toEqual(['C::adds']);
    const missing = join(checkout, 'absent.xml');
    expect(
      await refusal(
        readPlannedReport({ format: 'junit-xml', source: { kind: 'file', path: missing } }, quiet, place()),
      ),
    ).toEqual({ code: 'no-report', message: `it wrote no report at ${missing}` });
  });

  it('names the one file of many that cannot be read', async () => {
    const dir = join(checkout, 'target', 'surefire-reports');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'TEST-a.xml'), suite('a'));
    await writeFile(join(dir, 'TEST-b.xml'), '<testsuite name="s"><testcase');
    await writeFile(join(dir, 'TEST-c.xml'), suite('c'));
    const source = { kind: 'files', dir: '.', pattern: /(^|\/)TEST-[^/]+\.xml$/ } as const;
    const { code, message } = await refusal(readPlannedReport({ format: 'junit-xml', source }, quiet, place()));
    expect(code).toBe('report-unreadable');
    expect(message).toMatch(/^target\/surefire-reports\/TEST-b\.xml: junit-xml: not well-formed XML/);
    await writeFile(join(dir, 'TEST-b.xml'), suite('b'));
    const whole = await readPlannedReport({ format: 'junit-xml', source }, quiet, place());
    expect(whole.tests.map((test) => test.id)).toEqual(['C::a', 'C::b', 'C::c']);
  });

  it('refuses a report past the size limit by its size, without reading it', async () => {
    const path = join(checkout, 'huge.json');
    await writeFile(path, '');
    // A sparse file: its size is what counts, and nothing is read.
    await truncate(path, MAX_REPORT_BYTES + 1);
    const { code, message } = await refusal(
      readPlannedReport({ format: 'jest-json', source: { kind: 'file', path } }, quiet, place()),
    );
    expect(code).toBe('report-unreadable');
    expect(message).toContain(`${path} is ${MAX_REPORT_BYTES + 1} bytes`);
  });

  it('never reads stdout cut at the output limit as a report', async () => {
    const line = `${JSON.stringify({ Action: 'pass', Package: 'p', Test: 'TestA' })}\n`;
    const cut = { stdout: Buffer.from(line), stdoutTruncated: true, stderr: '' };
    expect(
      (await refusal(readPlannedReport({ format: 'go-test-json', source: { kind: 'stdout' } }, cut, place()))).code,
    ).toBe('report-unreadable');
    const whole = await readPlannedReport(
      { format: 'go-test-json', source: { kind: 'stdout' } },
      { ...cut, stdoutTruncated: false },
      place(),
    );
    expect(whole.tests.map((test) => test.id)).toEqual(['p::TestA']);
  });
});
