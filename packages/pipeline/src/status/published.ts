// The published records `abp status` summarizes, read from the files registry/publication.ts writes (never from the
// worker's database, so they show with the stack down): the latest registry version and the draws, each with whether
// its signed statement verifies.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PublicationError, publicationPaths, readPublishedRegistry } from '../registry/publication.js';
import { drawRecordDigest } from '@abp/protocol/draw/record';
import { drawSchema, type AbpDraw } from '@abp/protocol/schemas/abp-draw';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath } from '@abp/protocol/schemas/json-text';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { DRAW_RECORD_PREDICATE, drawSubjectName, REGISTRY_VERSION_PREDICATE } from '@abp/protocol/signing/statement';
import { absent, found, messageOf, unavailable, type Part } from './part.js';
import { signatureState, type SignatureState, type TrustRootState } from './signatures.js';

export interface RegistryFacts {
  version: string;
  repositories: number;
  digest: string;
  previous: string | null;
  criteriaVersion: string;
  sourcedAt: string;
  path: string;
  /** How many versions are published, this one included. */
  publishedVersions: number;
  signature: SignatureState;
}

export interface DrawFacts {
  /** Every published draw record, readable or not. */
  count: number;
  /** The draw made last (by drawnAt, then id); null when none is readable. */
  latest: {
    id: string;
    registryVersion: string;
    seed: number;
    drawnAt: string;
    requested: number;
    digest: string;
    path: string;
    picks: Array<{ order: number; repo: string; issue: number }>;
    signature: SignatureState;
  } | null;
  /** Records that did not parse or whose digest does not match: named so an operator can look at them. */
  unreadable: Array<{ path: string; problem: string }>;
}

export interface PublishedSources {
  /** `<home>/published`, the publication root. */
  publishedDir: string;
  statementsDir: string;
  trustRoot: TrustRootState;
}

const QUARTER_FILE = /^\d{4}Q[1-4]\.json$/;
const DRAW_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.json$/;

async function namesIn(dir: string): Promise<string[] | null> {
  return readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

export async function registryFacts(sources: PublishedSources): Promise<Part<RegistryFacts>> {
  const paths = publicationPaths(sources.publishedDir);
  const versions = ((await namesIn(paths.registryDir)) ?? []).filter((name) => QUARTER_FILE.test(name));
  if (versions.length === 0)
    return absent('no registry version yet: run `abp registry rotate` (the quarterly Schedule does it on its own)');
  let read: Awaited<ReturnType<typeof readPublishedRegistry>>;
  try {
    read = await readPublishedRegistry(sources.publishedDir, null);
  } catch (error) {
    if (error instanceof PublicationError) return unavailable(`${error.message}; rotate again or restore the file`);
    throw error;
  }
  const { document, path } = read;
  return found({
    version: document.version,
    repositories: document.entries.length,
    digest: document.digest,
    previous: document.previous,
    criteriaVersion: document.criteriaVersion,
    sourcedAt: document.sourcedAt,
    path,
    publishedVersions: versions.length,
    signature: await signatureState(
      {
        statementsDir: sources.statementsDir,
        kind: 'registry-version',
        subject: document.version,
        digest: document.digest,
        predicateType: REGISTRY_VERSION_PREDICATE,
      },
      sources.trustRoot,
    ),
  });
}

async function readDraw(path: string): Promise<AbpDraw> {
  const parsed = drawSchema.safeParse(JSON.parse(await readFile(path, 'utf8')), plainWordsParseOptions);
  if (!parsed.success) {
    const [first] = locateIssues(parsed.error.issues);
    throw new Error(
      `not an abp-draw/v1 record: ${first === undefined ? 'invalid' : `${formatJsonPath(first.path)}: ${first.message}`}`,
    );
  }
  const digest = drawRecordDigest(parsed.data);
  if (digest !== parsed.data.digest)
    throw new Error(`hashes to ${digest} but records ${parsed.data.digest}: it was changed after publication`);
  return parsed.data;
}

export async function drawFacts(sources: PublishedSources): Promise<Part<DrawFacts>> {
  const dir = join(sources.publishedDir, 'draws');
  const names = ((await namesIn(dir)) ?? []).filter((name) => DRAW_FILE.test(name)).sort(compareCodeUnits);
  if (names.length === 0)
    return absent(
      'no draw yet: run `abp draw --seed <published seed> --count <n>` once a registry version is published',
    );
  const unreadable: DrawFacts['unreadable'] = [];
  const draws: Array<{ record: AbpDraw; path: string }> = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      draws.push({ record: await readDraw(path), path });
    } catch (error) {
      unreadable.push({ path, problem: messageOf(error) });
    }
  }
  // drawnAt is a UTC timestamp in one format, so its text orders as its time does.
  draws.sort(
    (a, b) => compareCodeUnits(a.record.drawnAt, b.record.drawnAt) || compareCodeUnits(a.record.id, b.record.id),
  );
  const last = draws.at(-1);
  const latest =
    last === undefined
      ? null
      : {
          id: last.record.id,
          registryVersion: last.record.registryVersion,
          seed: last.record.seed,
          drawnAt: last.record.drawnAt,
          requested: last.record.requested,
          digest: last.record.digest,
          path: last.path,
          picks: last.record.picks.map(({ order, repo, issue }) => ({ order, repo, issue })),
          signature: await signatureState(
            {
              statementsDir: sources.statementsDir,
              kind: 'draw-record',
              subject: drawSubjectName(last.record.id),
              digest: last.record.digest,
              predicateType: DRAW_RECORD_PREDICATE,
            },
            sources.trustRoot,
          ),
        };
  return found({ count: names.length, latest, unreadable });
}
