// Reads what test-suite detection needs of each candidate, the same inputs the freeze gives it from a checkout: the
// default branch's whole tree (REST's recursive tree listing, one request a repository) and the text of the manifests
// detection reads in it (GraphQL blobs by the ids the listing gave, so the texts belong to the tree listed, many
// repositories a query).
import { z } from 'zod';
import type { GithubClient } from '../../github/client.js';
import { manifestsToRead } from '../suites/detect-suite.js';
import type { DiscoveryCost } from './graphql.js';
import { AliasedQuery, queryFailed, readAnswer, runQuery } from './graphql.js';

export interface SuiteFiles {
  /** Every file path, sorted. */
  paths: string[];
  texts: Record<string, string>;
  treeTruncated: boolean;
}

/**
 * Tree listings in flight at once: a few, far below GitHub's 100 concurrent requests, so 3,000 candidates take
 * seconds rather than minutes of round trips; the client's throttling waits out any secondary limit this meets.
 */
const TREES_IN_FLIGHT = 4;
/** Blobs asked for in one query: small enough for GitHub's query limits, large enough that a batch takes a few. */
const BLOBS_PER_QUERY = 300;

const treeAnswer = z.object({
  truncated: z.boolean(),
  tree: z.array(
    z.object({ path: z.string().min(1), type: z.string(), sha: z.string(), size: z.int().nonnegative().optional() }),
  ),
});
const blobAnswer = z.object({ text: z.string().nullable().optional() }).nullable();

interface Listed {
  paths: string[];
  manifests: Array<{ path: string; sha: string }>;
  truncated: boolean;
}

/** One repository's tree, or null when GitHub no longer resolves the repository or the branch. */
async function listTree(
  octokit: GithubClient,
  name: string,
  branch: string,
  cost: DiscoveryCost,
): Promise<Listed | null> {
  const [owner = '', repo = ''] = name.split('/');
  const what = `the tree of ${name}@${branch}`;
  let data: unknown;
  try {
    data = (await octokit.rest.git.getTree({ owner, repo, tree_sha: branch, recursive: '1' })).data;
  } catch (error) {
    // Gone since the candidate query (deleted, renamed away, emptied): missing, as an unresolved alias is.
    const status = (error as { status?: unknown } | null)?.status;
    if (status === 404 || status === 409) return null;
    throw queryFailed(error, `reading ${what}`);
  } finally {
    cost.requests += 1;
  }
  const answer = readAnswer(treeAnswer, data, what);
  const blobs = answer.tree.filter((entry) => entry.type === 'blob');
  const sha = new Map(blobs.map((entry) => [entry.path, entry.sha]));
  return {
    paths: blobs.map((entry) => entry.path).sort(),
    manifests: manifestsToRead(blobs.map((entry) => ({ path: entry.path, size: entry.size ?? 0 }))).map((path) => ({
      path,
      sha: sha.get(path) ?? '',
    })),
    truncated: answer.truncated,
  };
}

/**
 * The suite files of each repository (by name, with its default branch), in the order given; a repository GitHub no
 * longer resolves is left out and named in `missing`.
 */
export async function readSuiteFiles(
  octokit: GithubClient,
  repositories: ReadonlyArray<{ name: string; branch: string }>,
  cost: DiscoveryCost,
): Promise<{ files: Map<string, SuiteFiles>; missing: Set<string> }> {
  const files = new Map<string, SuiteFiles>();
  const missing = new Set<string>();
  const wanted: Array<{ name: string; path: string; sha: string }> = [];
  const listings: Array<Listed | null> = new Array<Listed | null>(repositories.length).fill(null);
  let next = 0;
  const lister = async (): Promise<void> => {
    for (let at = next++; at < repositories.length; at = next++) {
      const { name, branch } = repositories[at] ?? { name: '', branch: '' };
      listings[at] = await listTree(octokit, name, branch, cost);
    }
  };
  await Promise.all(Array.from({ length: TREES_IN_FLIGHT }, lister));
  // In the order given, whatever order the listings arrived in.
  repositories.forEach(({ name }, at) => {
    const listed = listings[at] ?? null;
    if (listed === null) {
      missing.add(name);
      return;
    }
    files.set(name, { paths: listed.paths, texts: {}, treeTruncated: listed.truncated });
    for (const manifest of listed.manifests) wanted.push({ name, ...manifest });
  });
  for (let start = 0; start < wanted.length; start += BLOBS_PER_QUERY) {
    const part = wanted.slice(start, start + BLOBS_PER_QUERY);
    const query = new AliasedQuery();
    const asked = new Map<string, typeof part>();
    for (const name of new Set(part.map((blob) => blob.name))) {
      const blobs = part.filter((blob) => blob.name === name);
      const alias = query.add(name, (variable) =>
        blobs
          .map(
            (blob, index) =>
              `f${index}: object(oid: ${variable(`b${index}_`, 'GitObjectID!', blob.sha)}) { ... on Blob { text } }`,
          )
          .join(' '),
      );
      asked.set(alias, blobs);
    }
    const what = `the manifests of ${part.length} files from ${part[0]?.name ?? ''}`;
    const { data, unresolved } = await runQuery(octokit, query.text('RegistrySuiteFiles'), query.variables, cost, what);
    for (const [alias, blobs] of asked) {
      const name = blobs[0]?.name ?? '';
      const answer = data[alias];
      if (unresolved.has(alias) || answer === null || typeof answer !== 'object') {
        files.delete(name);
        missing.add(name);
        continue;
      }
      const texts = files.get(name)?.texts ?? {};
      blobs.forEach((blob, index) => {
        // A binary blob has no text; detection reads it as absent, as it would a manifest it cannot parse.
        const text = readAnswer(
          blobAnswer,
          (answer as Record<string, unknown>)[`f${index}`],
          `${what} (${name})`,
        )?.text;
        if (typeof text === 'string') texts[blob.path] = text;
      });
    }
  }
  return { files, missing };
}
