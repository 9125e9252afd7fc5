// The registry's published documents as files in the data directory: what `abp registry show|diff`, `abp audit draw`
// and (later) `abp serve` read without opening the worker's database. Each file is written whole (temp file, rename)
// and named by what identifies it, so publishing again writes the same bytes to the same place.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { registrySchema, type AbpRegistry } from '@abp/protocol/schemas/abp-registry';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { registryDigest } from '@abp/protocol/schemas/registry-digest';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { AbpError } from '@abp/protocol/errors';

export class PublicationError extends AbpError<'not-published' | 'invalid-document' | 'digest-mismatch'> {}

const hex = (digest: string) => digest.replace(/^sha256:/, '');

/** Where each kind of document lives under the publication root (`<ABP_HOME>/published`). */
export function publicationPaths(root: string) {
  return {
    registryDir: join(root, 'registry'),
    /** `abp-registry/2026Q4` → `registry/2026Q4.json`. */
    registry: (version: string) => join(root, 'registry', `${version.replace(/^abp-registry\//, '')}.json`),
    /** The opt-out list as it stands after the last change. */
    optOuts: join(root, 'opt-outs.json'),
    /** A backlog snapshot by its digest: the canonical JSONL whose sha256 is the digest. */
    snapshot: (digest: string) => join(root, 'backlog', `${hex(digest)}.jsonl`),
    /** A draw record by its id. */
    draw: (id: string) => join(root, 'draws', `${id}.json`),
    /** An opt-out list as it was in force for a draw, by its digest (registry/draw/record.ts optOutsDigest). */
    optOutsAt: (digest: string) => join(root, 'opt-outs', `${hex(digest)}.json`),
    /** Records of the tasks frozen by hand, one per task id (freeze/published-tasks.ts). */
    tasksDir: join(root, 'tasks'),
  };
}

/** Canonical JSON plus a newline: the bytes the digest covers, so a reader can re-hash the file as it is. */
export function documentText(document: unknown): string {
  return `${canonicalJson(document)}\n`;
}

/** Writes a published document whole and durably (temp file, fsync, rename): a crash leaves the old bytes or the new. */
export async function writePublished(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, text);
}

export async function publishRegistry(root: string, document: AbpRegistry): Promise<string> {
  const path = publicationPaths(root).registry(document.version);
  await writePublished(path, documentText(document));
  return path;
}

/** Reads a published version and checks it: schema and digest. Null version: the latest published. */
export async function readPublishedRegistry(
  root: string,
  version: string | null,
): Promise<{ document: AbpRegistry; path: string }> {
  const paths = publicationPaths(root);
  let path: string;
  if (version === null) {
    const files = (await readdir(paths.registryDir).catch(() => [] as string[]))
      .filter((name) => /^\d{4}Q[1-4]\.json$/.test(name))
      .sort(compareCodeUnits);
    const latest = files.at(-1);
    if (latest === undefined)
      throw new PublicationError(
        'not-published',
        `no registry version is published in ${paths.registryDir}: run \`abp registry rotate\` first`,
      );
    path = join(paths.registryDir, latest);
  } else {
    path = paths.registry(version);
  }
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new PublicationError(
        'not-published',
        `${version ?? 'the latest version'} is not published: ${path} does not exist; run \`abp registry rotate --version ${version ?? '<abp-registry/YYYYQn>'}\``,
      );
    throw error;
  });
  const parsed = registrySchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PublicationError(
      'invalid-document',
      `${path}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}; the file is not an abp-registry/v1 document`,
    );
  }
  const digest = registryDigest(parsed.data);
  if (digest !== parsed.data.digest)
    throw new PublicationError(
      'digest-mismatch',
      `${path}: the document hashes to ${digest} but records ${parsed.data.digest}: it was changed after publication`,
    );
  return { document: parsed.data, path };
}

export interface RegistryComparison {
  from: string;
  to: string;
  added: string[];
  /** With the reason the newer version recorded, when it was rotated directly from the older one. */
  removed: { repo: string; reason: string | null }[];
  kept: string[];
}

/** What changed between two published versions, any two: consecutive ones carry the rotation's reasons. */
export function compareRegistries(from: AbpRegistry, to: AbpRegistry): RegistryComparison {
  const key = (repo: string) => repo.toLowerCase();
  const before = new Map(from.entries.map((entry) => [key(entry.repo), entry.repo]));
  const after = new Map(to.entries.map((entry) => [key(entry.repo), entry.repo]));
  const reasons =
    to.previous === from.version
      ? new Map(to.diff.removed.map((removal) => [key(removal.repo), removal.reason as string]))
      : new Map<string, string>();
  return {
    from: from.version,
    to: to.version,
    added: [...after]
      .filter(([name]) => !before.has(name))
      .map(([, repo]) => repo)
      .sort(compareCodeUnits),
    removed: [...before]
      .filter(([name]) => !after.has(name))
      .map(([name, repo]) => ({ repo, reason: reasons.get(name) ?? null }))
      .sort((a, b) => compareCodeUnits(a.repo, b.repo)),
    kept: [...after]
      .filter(([name]) => before.has(name))
      .map(([, repo]) => repo)
      .sort(compareCodeUnits),
  };
}
