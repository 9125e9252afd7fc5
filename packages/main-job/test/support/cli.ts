// This package's real `abp` command, run as a user or CI would.
import { fileURLToPath } from 'node:url';
import { runAbpBinary, type CliResult } from '../../../../test-support/run-abp.js';

export { freePort } from '@abp/pipeline/dev-stack/processes';
export type { CliResult };

const abpBin = fileURLToPath(new URL('../../bin/abp.js', import.meta.url));

export function runAbp(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
  return runAbpBinary(abpBin, args, env, timeoutMs);
}
