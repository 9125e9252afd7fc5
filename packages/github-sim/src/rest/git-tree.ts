// GET /repos/{owner}/{repo}/git/trees/{tree_sha}?recursive=1: the default branch's files as GitHub lists a tree, with
// a folder entry for every folder, blob sizes, git's own blob ids, and `truncated` past GitHub's entry limit. Served
// from the files the world keeps for the default branch's head, so only that commit (by branch, sha or HEAD) is known.
import { createHash } from 'node:crypto';
import type { SimFile, SimRepo } from '../world/model.js';

/** GitHub lists at most this many entries of a recursive tree and sets `truncated`. */
export const TREE_ENTRY_LIMIT = 100_000;

export interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree';
  sha: string;
  size?: number;
  url: string;
}

function gitObjectId(kind: 'blob' | 'tree', body: Buffer): string {
  return createHash('sha1').update(`${kind} ${body.length}\0`).update(body).digest('hex');
}

/** Git's tree ids, computed bottom-up from the files, so they agree with a clone of the same content. */
function treeIds(files: readonly SimFile[]): { blobs: Map<string, string>; trees: Map<string, string> } {
  const blobs = new Map(files.map((file) => [file.path, gitObjectId('blob', Buffer.from(file.content, 'utf8'))]));
  const children = new Map<string, Map<string, { mode: string; path: string }>>();
  const childrenOf = (folder: string) => {
    let entries = children.get(folder);
    if (entries === undefined) children.set(folder, (entries = new Map<string, { mode: string; path: string }>()));
    return entries;
  };
  for (const file of files) {
    const parts = file.path.split('/');
    for (let depth = 0; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join('/');
      const path = parts.slice(0, depth + 1).join('/');
      childrenOf(folder).set(parts[depth] ?? '', { mode: depth === parts.length - 1 ? '100644' : '40000', path });
    }
  }
  const trees = new Map<string, string>();
  const idOf = (folder: string): string => {
    const known = trees.get(folder);
    if (known !== undefined) return known;
    // Git orders a tree's entries by name, a folder's name compared as if it ended in "/".
    const entries = [...(children.get(folder) ?? new Map<string, { mode: string; path: string }>()).entries()].sort(
      ([a, x], [b, y]) => {
        const left = x.mode === '40000' ? `${a}/` : a;
        const right = y.mode === '40000' ? `${b}/` : b;
        return left < right ? -1 : left > right ? 1 : 0;
      },
    );
    const body = Buffer.concat(
      entries.map(([name, entry]) =>
        Buffer.concat([
          Buffer.from(`${entry.mode} ${name}\0`, 'utf8'),
          Buffer.from(entry.mode === '40000' ? idOf(entry.path) : (blobs.get(entry.path) ?? ''), 'hex'),
        ]),
      ),
    );
    const id = gitObjectId('tree', body);
    trees.set(folder, id);
    return id;
  };
  idOf('');
  for (const folder of children.keys()) idOf(folder);
  return { blobs, trees };
}

/** The repository's root tree, recursively or its top level only, sorted by path. */
export function gitTree(
  repo: SimRepo,
  repoUrl: string,
  recursive: boolean,
): { sha: string; url: string; tree: TreeEntry[]; truncated: boolean } {
  const { blobs, trees } = treeIds(repo.files);
  const entries: TreeEntry[] = [];
  for (const [folder, sha] of trees)
    if (folder !== '' && (recursive || !folder.includes('/')))
      entries.push({ path: folder, mode: '040000', type: 'tree', sha, url: `${repoUrl}/git/trees/${sha}` });
  for (const file of repo.files)
    if (recursive || !file.path.includes('/')) {
      const sha = blobs.get(file.path) ?? '';
      entries.push({
        path: file.path,
        mode: '100644',
        type: 'blob',
        sha,
        size: Buffer.byteLength(file.content, 'utf8'),
        url: `${repoUrl}/git/blobs/${sha}`,
      });
    }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const sha = trees.get('') ?? '';
  return {
    sha,
    url: `${repoUrl}/git/trees/${sha}`,
    tree: entries.slice(0, TREE_ENTRY_LIMIT),
    truncated: entries.length > TREE_ENTRY_LIMIT,
  };
}
