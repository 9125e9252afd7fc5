import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/run-conformance.js';
import { packageRoot } from '../../src/package-root.js';

const exec = promisify(execFile);
let dir = '';
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('abp conformance', () => {
  it('passes every adversarial check through the real abp run and links its receipts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'abp-conformance-test-'));
    const { stdout } = await exec(
      process.execPath,
      [join(packageRoot, 'bin', 'abp.js'), 'conformance', '-o', dir, '--json'],
      { maxBuffer: 8 * 1024 * 1024 },
    );
    const report = JSON.parse(stdout) as ConformanceReport;
    expect(report.checks.filter((check) => !check.passed)).toEqual([]);
    expect(report.level).toBe('ABP-traces');
    expect(report.checks.map((check) => check.id)).toEqual(
      expect.arrayContaining([
        'planted-verification',
        'lying-envelope-flagged',
        'uninvokable-excluded',
        'deleted-test-disqualified',
        'history-scrubbed',
        'no-secret-in-receipts',
      ]),
    );
    const written = JSON.parse(await readFile(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
    expect(written.level).toBe(report.level);
    expect(written.checks).toEqual(report.checks);
    // Every receipt a check links to exists.
    const receipts = report.checks.flatMap((check) => check.receipts);
    expect(receipts.length).toBeGreaterThan(10);
    await Promise.all(receipts.map((receipt) => access(join(dir, receipt))));
    await access(join(dir, report.results, 'verdict.json'));
  }, 180_000);
});
