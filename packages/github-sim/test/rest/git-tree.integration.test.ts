// The simulator's tree listing against real git: the same files give the same blob and tree ids, folder entries and
// sizes as `git ls-tree -r -t -l` of a commit holding them, so a client that checks ids against a clone agrees.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitTree, TREE_ENTRY_LIMIT } from '../../src/rest/git-tree.js';
import type { SimRepo } from '../../src/world/model.js';

const files = [
  { path: 'package.json', content: '{"name":"widgets"}\n' },
  { path: 'src/index.js', content: 'export const a = 1;\n' },
  { path: 'src/index-extra.js', content: 'export const b = 2;\n' },
  { path: 'src/deep/é/x.test.js', content: 'test("é", () => {});\n' },
  { path: 'src.d/readme.md', content: '# a folder whose name sorts between src and src/\n' },
];
const repo = { files, defaultBranch: 'main' } as unknown as SimRepo;
const scratch = mkdtempSync(join(tmpdir(), 'abp-git-tree-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function git(args: string[]): string {
  return execFileSync('git', ['-C', scratch, ...args], { encoding: 'utf8' });
}

describe('gitTree', () => {
  it('lists every folder and file with the ids and sizes git gives the same content', () => {
    git(['init', '-q']);
    for (const file of files) {
      mkdirSync(dirname(join(scratch, file.path)), { recursive: true });
      writeFileSync(join(scratch, file.path), file.content);
    }
    git(['add', '-A']);
    const rootTree = git(['write-tree']).trim();
    const listed = git(['-c', 'core.quotePath=false', 'ls-tree', '-r', '-t', '-l', rootTree])
      .trim()
      .split('\n')
      .map((line) => {
        const [meta = '', path = ''] = line.split('\t');
        const [mode, type, sha, size] = meta.split(/\s+/);
        return { path, mode, type, sha, ...(type === 'blob' ? { size: Number(size) } : {}) };
      })
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

    const tree = gitTree(repo, 'https://api.example/repos/o/r', true);
    expect(tree.sha).toBe(rootTree);
    expect(tree.truncated).toBe(false);
    expect(tree.tree.map(({ url: _url, ...entry }) => entry)).toEqual(listed);
    expect(tree.tree.find((entry) => entry.path === 'src')?.url).toBe(
      `https://api.example/repos/o/r/git/trees/${listed.find((entry) => entry.path === 'src')?.sha}`,
    );
  });

  it('lists only the top level without recursive, and stops at GitHub entry limit with truncated set', () => {
    expect(gitTree(repo, 'u', false).tree.map((entry) => entry.path)).toEqual(['package.json', 'src', 'src.d']);
    const many = {
      files: Array.from({ length: TREE_ENTRY_LIMIT + 5 }, (_, index) => ({ path: `f/${index}.txt`, content: '' })),
    } as unknown as SimRepo;
    const listing = gitTree(many, 'u', true);
    expect(listing.truncated).toBe(true);
    expect(listing.tree).toHaveLength(TREE_ENTRY_LIMIT);
  });
});
