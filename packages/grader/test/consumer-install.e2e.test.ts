// The grader as a consumer installs it: the tarballs `npm pack` makes of @abp/grader and @abp/protocol, installed with
// npm into a scratch prefix (their dependencies from the registry), with nothing of this repository on the way. From
// another folder, that `abp` prints its version, grades the conformance suite through its own `abp run`, and the
// installed tree holds none of the operator's dependencies (Temporal, the databases, the GitHub client, the simulator).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packages = fileURLToPath(new URL('../../', import.meta.url));
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, maxBuffer: 16 * 1024 * 1024 });

describe('the consumer install of the grader', () => {
  let root: string;
  let abp: string;
  let elsewhere: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-consumer-'));
    const packs = join(root, 'packs');
    const prefix = join(root, 'prefix');
    elsewhere = join(root, 'elsewhere');
    await Promise.all([packs, prefix, elsewhere].map((dir) => mkdir(dir, { recursive: true })));
    // The build the tests run is packed as it is: prepack's clean rebuild would pull dist/ from under other tests.
    for (const name of ['protocol', 'grader'])
      await npm(['pack', '--ignore-scripts', '--pack-destination', packs], join(packages, name));
    const tarballs = (await readdir(packs)).map((file) => join(packs, file));
    expect(tarballs.map((path) => path.slice(packs.length + 1)).sort()).toEqual([
      'abp-grader-0.1.0.tgz',
      'abp-protocol-0.1.0.tgz',
    ]);
    await npm(['install', '--prefix', prefix, ...tarballs], prefix);
    abp = join(prefix, 'node_modules', '.bin', 'abp');
  }, 300_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('installs without the pipeline’s dependencies', async () => {
    const installed = await readdir(join(root, 'prefix', 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['@abp', 'commander', 'zod']));
    for (const heavy of ['@temporalio', '@electric-sql', 'drizzle-orm', 'postgres', '@octokit', 'graphql'])
      expect(installed).not.toContain(heavy);
    expect((await readdir(join(root, 'prefix', 'node_modules', '@abp'))).sort()).toEqual(['grader', 'protocol']);
  });

  it('prints its version and its commands', async () => {
    expect((await run(abp, ['--version'], { cwd: elsewhere })).stdout.trim()).toBe('0.1.0');
    const help = (await run(abp, ['--help'], { cwd: elsewhere })).stdout;
    for (const command of ['run', 'gate', 'baseline', 'conformance', 'validate', 'verify', 'pull', 'audit'])
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(help).not.toMatch(/^ {2}(worker|draw|serve|start)\b/m);
  });

  it('grades the conformance suite from another folder and demonstrates ABP-traces', async () => {
    const { stdout } = await run(abp, ['conformance', '-o', join(elsewhere, 'conformance'), '--json'], {
      cwd: elsewhere,
      maxBuffer: 16 * 1024 * 1024,
    });
    const report = JSON.parse(stdout) as { level: string; checks: Array<{ id: string; passed: boolean }> };
    expect(report.checks.filter((check) => !check.passed)).toEqual([]);
    expect(report.level).toBe('ABP-traces');
    // The red team's engines run from the installed package too.
    expect(report.checks.map((check) => check.id)).toEqual(
      expect.arrayContaining(['hidden-test', 'live-hook', 'surviving-daemon', 'outside-read', 'dropped-lines']),
    );
  }, 600_000);
});
