// The freeze's scratch folders are named by their process, and a sweep removes only those of processes that are gone:
// never this process's, a live one's, or anything that is not a freeze's.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchPrefix, sweepAbandonedScratch } from '../../src/freeze/scratch.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-scratch-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the freeze scratch sweep', () => {
  it('removes the folders of processes that are gone, and nothing else', async () => {
    // Above Linux's pid_max (4194304 at most): no process can have it.
    const gone = 4_194_305;
    const names = [
      `${scratchPrefix('freeze')}own`,
      `gold-${process.ppid}-parent`,
      `freeze-${gone}-killed`,
      `gold-${gone}-killed`,
      'go-build',
      'built',
      'freeze-notapid-x',
    ];
    for (const name of names) await mkdir(join(root, name, 'checkout'), { recursive: true });
    expect((await sweepAbandonedScratch(root)).sort()).toEqual([`freeze-${gone}-killed`, `gold-${gone}-killed`]);
    expect((await readdir(root)).sort()).toEqual(
      [`${scratchPrefix('freeze')}own`, `gold-${process.ppid}-parent`, 'go-build', 'built', 'freeze-notapid-x'].sort(),
    );
    expect(await sweepAbandonedScratch(join(root, 'absent'))).toEqual([]);
  });
});
