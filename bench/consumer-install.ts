// What a consumer installs and how fast its `abp` starts (issue 15: under 60 MB installed, `abp --help` under 300 ms):
// the tarballs of @abp/grader and @abp/protocol installed with npm into a scratch prefix, the size of what landed,
// then `abp --help` and `abp --version` timed against the bare `node -e 0` start measured in the same run,
// interleaved, and against the operators' full `abp` of this repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.argv[2] ?? 15);
const SIZE_TARGET = 60 * 1024 ** 2;
const START_TARGET_MS = 300;
const packages = fileURLToPath(new URL('../packages/', import.meta.url));

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const time = (argv: string[]): number => {
  const started = performance.now();
  execFileSync(argv[0] ?? '', argv.slice(1), { stdio: 'ignore' });
  return performance.now() - started;
};

const root = mkdtempSync(join(tmpdir(), 'abp-bench-consumer-'));
try {
  const packs = join(root, 'packs');
  const prefix = join(root, 'prefix');
  mkdirSync(packs);
  mkdirSync(prefix);
  for (const name of ['protocol', 'grader'])
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packs, '--loglevel=error'], {
      cwd: join(packages, name),
      stdio: 'ignore',
    });
  const tarballs = readdirSync(packs).map((file) => join(packs, file));
  const installStarted = performance.now();
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
    cwd: prefix,
    stdio: 'ignore',
  });
  const installMs = performance.now() - installStarted;
  const modules = join(prefix, 'node_modules');
  const installed = folderBytes(modules);
  const count = readdirSync(modules)
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)) : [name]))
    .filter((name) => !name.startsWith('.')).length;
  const abp = join(modules, '.bin', 'abp');
  const full = join(packages, 'main-job', 'bin', 'abp.js');

  const samples = { node: [] as number[], help: [] as number[], version: [] as number[], full: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.node.push(time([process.execPath, '-e', '0']));
    samples.help.push(time([abp, '--help']));
    samples.version.push(time([abp, '--version']));
    samples.full.push(time([process.execPath, full, '--help']));
  }
  const node = median(samples.node);
  const help = median(samples.help);
  const row = (label: string, ms: number) =>
    `  ${label.padEnd(36)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / node).toFixed(2)}× node -e 0`;
  console.log(
    `consumer install: ${tarballs.length} tarballs, ${count} packages, ${(installed / 1024 ** 2).toFixed(1)} MiB in node_modules (target under ${SIZE_TARGET / 1024 ** 2} MB: ${installed < SIZE_TARGET ? 'met' : 'MISSED'}), npm install ${(installMs / 1000).toFixed(1)} s`,
  );
  console.log(`start-up, median of ${ROUNDS} interleaved runs:`);
  console.log(row('node -e 0 (baseline)', node));
  console.log(row('abp --help (consumer install)', help));
  console.log(row('abp --version (consumer install)', median(samples.version)));
  console.log(row('abp --help (operators, this repo)', median(samples.full)));
  console.log(`abp --help under ${START_TARGET_MS} ms: ${help < START_TARGET_MS ? 'met' : 'MISSED'}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
