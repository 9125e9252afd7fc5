// The data directory as the grader's commands read it: ABP_HOME, default ./.abp. A consumer keeps here the trust root
// it pins and the checkpoints it has seen of each registry's transparency log; an operator's data directory (laid out
// by the pipeline) holds its own trust root and log at the same places, so `abp verify` and `abp audit log` work there.
import { join, resolve } from 'node:path';

export function resolveHome(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd = process.cwd(),
): string {
  return resolve(cwd, env.ABP_HOME || '.abp');
}

export function homePaths(home: string, env: Readonly<Record<string, string | undefined>> = process.env) {
  return {
    /** The trust root `abp init` writes and consumers pin. */
    trustRoot: join(home, 'trust-root.json'),
    /** The registry's transparency log (docs/transparency-log.md §2). */
    log: join(home, 'log'),
    /** Checkpoints kept of each registry's log (pull/kept-checkpoints.ts). */
    keptCheckpoints: join(home, 'kept-checkpoints'),
    /**
     * Task environments: an OCI image layout with the unpacked root file systems beside it. ABP_ENVIRONMENTS moves it,
     * e.g. to one store several data directories share, since environments are addressed by digest.
     */
    environments: env.ABP_ENVIRONMENTS ? resolve(env.ABP_ENVIRONMENTS) : join(home, 'environments'),
  };
}
