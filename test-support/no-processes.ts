// The unit tier starts no processes: a test that spawns one (git, a runner, the CLI) belongs in
// `*.integration.test.ts`. Every way node:child_process starts a program fails here with that fix, so a misfiled
// test is caught the first time it runs instead of slowing the fast tier.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = () => {
    throw new Error(
      `a unit test may not start a process (child_process.${name}): rename the test file to *.integration.test.ts`,
    );
  };
}
syncBuiltinESMExports();
