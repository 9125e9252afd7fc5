// The freeze's scratch folders in its work folder (checkouts, suite runs, the gold proof), named by the process that
// made them: a freeze ends by removing its own, but a worker SIGKILLed mid-freeze cannot, so a freeze worker sweeps
// those of processes that are gone when it starts. A folder of a live process, here or another worker on the same
// data directory, is never touched.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '@abp/grader/execution';
import { removeTree } from '@abp/grader/run';

const KINDS = ['freeze', 'gold'] as const;
const OWNED = new RegExp(`^(?:${KINDS.join('|')})-(\\d+)-`);

/** The mkdtemp prefix of a scratch folder of `kind` made by this process. */
export function scratchPrefix(kind: (typeof KINDS)[number]): string {
  return `${kind}-${process.pid}-`;
}

/** Removes the scratch folders in `workDir` whose process is gone; returns their names. */
export async function sweepAbandonedScratch(workDir: string): Promise<string[]> {
  const swept: string[] = [];
  for (const name of await readdir(workDir).catch(() => [] as string[])) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    await removeTree(join(workDir, name));
    swept.push(name);
  }
  return swept;
}
