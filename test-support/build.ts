// Brings dist/ up to date before a tier whose tests start abp's own processes (the CLI, the worker, the engines): they
// run the build, and a stale one would test yesterday's code. `tsc -b` is incremental, so an up-to-date tree costs a
// few seconds.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-b'],
    { cwd: root, stdio: 'inherit' },
  );
}
