// Writes git directories as files (HEAD, config, refs, alternates) instead of spawning `git init`:
// a trial needs three of them, and a layout written by hand also cannot inherit templates,
// sample hooks or a default branch from the machine's git setup.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface GitDirLayout {
  bare: boolean;
  /** HEAD names this branch; it points at `commit`, or is unborn while `commit` is null. */
  branch: string;
  commit: string | null;
  /** An objects directory to read from: the task's scrubbed cache, which holds nothing past base. */
  alternates?: string;
}

export async function writeGitDir(gitDir: string, layout: GitDirLayout): Promise<void> {
  const leaves = [
    ['objects', 'pack'],
    ['objects', 'info'],
    ['refs', 'heads'],
    ['refs', 'tags'],
  ];
  await Promise.all(leaves.map((leaf) => mkdir(join(gitDir, ...leaf), { recursive: true })));
  const config = [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tfilemode = true',
    `\tbare = ${String(layout.bare)}`,
    `\tlogallrefupdates = ${String(!layout.bare)}`,
    '',
  ];
  const writes = [
    writeFile(join(gitDir, 'HEAD'), `ref: refs/heads/${layout.branch}\n`),
    writeFile(join(gitDir, 'config'), config.join('\n')),
  ];
  if (layout.commit !== null)
    writes.push(writeFile(join(gitDir, 'refs', 'heads', layout.branch), `${layout.commit}\n`));
  if (layout.alternates !== undefined)
    writes.push(writeFile(join(gitDir, 'objects', 'info', 'alternates'), `${layout.alternates}\n`));
  await Promise.all(writes);
}
