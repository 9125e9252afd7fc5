// The detection corpus (bench/corpus/repos/): each popular repository's file listing and manifests as a RepoTree, with
// the hand-written truth of what its own CI runs. Read by the coverage bench and by the test that holds detection's
// floor on it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { RepoTree } from '@abp/pipeline/registry/suites/repo-tree';

export interface CorpusTruth {
  ecosystem: string;
  packageManager: string;
  /** The runners CI uses, the main one first. */
  runners: string[];
  hasTests: boolean;
  /** What the suite needs beyond its toolchain and registry packages (network, database, browser, …). */
  needs: string[];
}

export interface CorpusEntry {
  repo: string;
  truth: CorpusTruth;
  tree: RepoTree;
}

export const CORPUS_DIR = join(import.meta.dirname, '..', 'bench', 'corpus', 'repos');

/** Every repository of the corpus with its truth written, sorted by folder. */
export function loadCorpus(): CorpusEntry[] {
  return readdirSync(CORPUS_DIR)
    .sort()
    .flatMap((folder) => {
      const dir = join(CORPUS_DIR, folder);
      const record = JSON.parse(readFileSync(join(dir, 'repo.json'), 'utf8')) as {
        repo: string;
        truth: CorpusTruth | null;
      };
      if (record.truth === null) return [];
      const paths = gunzipSync(readFileSync(join(dir, 'tree.txt.gz')))
        .toString('utf8')
        .split('\n')
        .filter(Boolean);
      const tree: RepoTree = {
        paths,
        text: (path) => {
          const file = join(dir, 'files', path);
          return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
        },
      };
      return [{ repo: record.repo, truth: record.truth, tree }];
    });
}

/** Whether a detected runner is the one CI runs: pytest runs unittest suites and names them as its own. */
export function isTruthRunner(found: string | undefined, truth: CorpusTruth): boolean {
  if (found === undefined) return false;
  return truth.runners.includes(found) || (found === 'pytest' && truth.runners.includes('unittest'));
}
