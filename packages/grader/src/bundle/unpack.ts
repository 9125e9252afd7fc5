// Reads a task bundle back: its two addressed subjects, and the task folder the grader loads (task.json, issue.md, repo/
// rehydrated at base, held-out/), written whole or not at all. Everything is checked before the first byte is written.
import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { formatIssues } from '@abp/protocol/schemas/issues';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';
import { parseExpectedResults } from '@abp/protocol/bundle/expected-results';
import { rehydrateRepository } from './git-objects.js';
import {
  EXPECTED_RESULTS_ENTRY,
  GOLDEN_PATCH_ENTRY,
  HELD_OUT_ENTRY,
  HELD_OUT_FILES_PREFIX,
  ISSUE_ENTRY,
  OBJECTS_ENTRY,
  OUTER_ENTRIES,
  TASK_ENTRY,
} from '@abp/protocol/bundle/layout';
import { readTar, type TarEntry } from '@abp/protocol/bundle/tar';

export interface UnpackTarget {
  /** Created by the unpack; must not exist yet. */
  taskDir: string;
  /** Where the held-out part goes when it must stay apart from what an agent sees; taskDir/held-out by default. */
  heldOutDir?: string;
  /** "sha256:<hex>" the archive must have, e.g. the digest a signed statement names. */
  expectedDigest?: string;
}

export interface UnpackedBundle {
  digest: string;
  heldOutDigest: string;
  manifest: AbpTask;
  taskDir: string;
  heldOutDir: string;
  /** Git objects written to taskDir/repo. */
  objects: number;
}

interface OpenedBundle {
  entries: Map<string, Buffer>;
  heldOut: Buffer;
}

async function loadArchive(archive: Buffer | string): Promise<{ bytes: Buffer; label: string }> {
  if (typeof archive !== 'string') return { bytes: archive, label: 'bundle' };
  const bytes = await readFile(archive).catch((error: NodeJS.ErrnoException) => {
    throw new BundleError(
      'not-found',
      `${archive}: cannot read the bundle (${error.code ?? error.message}); check the path`,
      { cause: error },
    );
  });
  return { bytes, label: archive };
}

function openBundle(bytes: Buffer, label: string): OpenedBundle {
  const entries = new Map(readTar(bytes, label).map((entry) => [entry.path, entry.content]));
  const names = [...entries.keys()];
  if (names.join('\n') !== OUTER_ENTRIES.join('\n')) {
    throw new BundleError(
      'invalid-layout',
      `${label}: holds ${JSON.stringify(names)}, but a bundle holds exactly ${JSON.stringify(OUTER_ENTRIES)} in that order`,
    );
  }
  return { entries, heldOut: entries.get(HELD_OUT_ENTRY) as Buffer };
}

/** The sha256 (hex) of the archive and of its held-out part: the subjects of the bundle's signed statement. */
export async function readBundleSubjects(archive: Buffer | string): Promise<{ archive: string; heldOut: string }> {
  const { bytes, label } = await loadArchive(archive);
  return { archive: sha256Hex(bytes), heldOut: sha256Hex(openBundle(bytes, label).heldOut) };
}

function parseJson(bytes: Buffer, file: string, code: 'invalid-manifest' | 'invalid-expected-results'): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new BundleError(
      code,
      `${file}: not valid JSON (${(error as Error).message}); the bundle was damaged or built by another tool`,
      { cause: error },
    );
  }
}

function readManifest(bytes: Buffer, file: string): { manifest: AbpTask; baseCommit: string } {
  const parsed = taskSchema.safeParse(parseJson(bytes, file, 'invalid-manifest'));
  if (!parsed.success)
    throw new BundleError(
      'invalid-manifest',
      `${file} is not a valid abp-task/v1 manifest:\n${formatIssues(parsed.error.issues)}`,
    );
  const { source } = parsed.data;
  if (source.kind !== 'github-issue')
    throw new BundleError(
      'invalid-manifest',
      `${file}: source.kind is "fixture", but a bundle carries a github-issue task with its repository`,
    );
  return { manifest: parsed.data, baseCommit: source.baseCommit };
}

function readHeldOut(bytes: Buffer, label: string): TarEntry[] {
  const entries = readTar(bytes, label);
  const stray = entries.find(
    (entry) =>
      !entry.path.startsWith(HELD_OUT_FILES_PREFIX) &&
      entry.path !== EXPECTED_RESULTS_ENTRY &&
      entry.path !== GOLDEN_PATCH_ENTRY,
  );
  if (stray !== undefined)
    throw new BundleError(
      'invalid-layout',
      `${label}: holds ${JSON.stringify(stray.path)}; the held-out part holds ${HELD_OUT_FILES_PREFIX}**, ${EXPECTED_RESULTS_ENTRY} and ${GOLDEN_PATCH_ENTRY} only`,
    );
  const expected = entries.find((entry) => entry.path === EXPECTED_RESULTS_ENTRY);
  if (expected === undefined || !entries.some((entry) => entry.path === GOLDEN_PATCH_ENTRY)) {
    throw new BundleError(
      'invalid-layout',
      `${label}: lacks ${expected === undefined ? EXPECTED_RESULTS_ENTRY : GOLDEN_PATCH_ENTRY}; every held-out part has both`,
    );
  }
  parseExpectedResults(
    parseJson(expected.content, `${label}: ${EXPECTED_RESULTS_ENTRY}`, 'invalid-expected-results'),
    `${label}: ${EXPECTED_RESULTS_ENTRY}`,
  );
  return entries;
}

async function ensureAbsent(dir: string): Promise<void> {
  const found = await stat(dir).then(
    () => true,
    () => false,
  );
  if (found)
    throw new BundleError('destination-exists', `${dir} already exists; unpack into a new folder or remove it first`);
}

/** A fresh folder beside `dir`, so publishing it is one rename on the same file system. */
async function stage(dir: string): Promise<string> {
  await mkdir(dirname(dir), { recursive: true });
  const staged = await mkdtemp(join(dirname(dir), `.${basename(dir)}.unpack-`));
  // mkdtemp makes it private; a published task folder is as readable as one made with mkdir.
  await chmod(staged, 0o755);
  return staged;
}

async function publish(staged: string, dir: string): Promise<void> {
  await rename(staged, dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST')
      throw new BundleError(
        'destination-exists',
        `${dir} appeared while the bundle was unpacked; unpack into a new folder`,
        { cause: error },
      );
    throw error;
  });
}

async function writeEntries(root: string, entries: readonly TarEntry[]): Promise<void> {
  for (const entry of entries) {
    const path = join(root, entry.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, entry.content, { mode: entry.executable === true ? 0o755 : 0o644 });
  }
}

/**
 * Unpacks a bundle (its bytes or its path) into a new task folder that loadTaskDirectory reads. Any failure leaves no
 * folder behind: each part is written into a temporary sibling and renamed into place at the end.
 */
export async function unpackBundle(archive: Buffer | string, target: UnpackTarget): Promise<UnpackedBundle> {
  const { bytes, label } = await loadArchive(archive);
  const digest = `sha256:${sha256Hex(bytes)}`;
  if (target.expectedDigest !== undefined && target.expectedDigest !== digest) {
    throw new BundleError(
      'digest-mismatch',
      `${label}: has digest ${digest}, not the expected ${target.expectedDigest}; the bundle was altered or is another one`,
    );
  }
  const { entries, heldOut } = openBundle(bytes, label);
  const { manifest, baseCommit } = readManifest(entries.get(TASK_ENTRY) as Buffer, `${label}: ${TASK_ENTRY}`);
  const heldOutEntries = readHeldOut(heldOut, `${label}: ${HELD_OUT_ENTRY}`);

  const taskDir = resolve(target.taskDir);
  const separate = target.heldOutDir !== undefined;
  const heldOutDir = target.heldOutDir !== undefined ? resolve(target.heldOutDir) : join(taskDir, 'held-out');
  await ensureAbsent(taskDir);
  if (separate) await ensureAbsent(heldOutDir);

  const staged: string[] = [];
  const published: string[] = [];
  try {
    const stagedTask = await stage(taskDir);
    staged.push(stagedTask);
    const stagedHeldOut = separate ? await stage(heldOutDir) : join(stagedTask, 'held-out');
    if (separate) staged.push(stagedHeldOut);
    await writeEntries(stagedTask, [
      { path: TASK_ENTRY, content: entries.get(TASK_ENTRY) as Buffer },
      { path: ISSUE_ENTRY, content: entries.get(ISSUE_ENTRY) as Buffer },
    ]);
    const objects = await rehydrateRepository(
      entries.get(OBJECTS_ENTRY) as Buffer,
      join(stagedTask, 'repo'),
      baseCommit,
      `${label}: ${OBJECTS_ENTRY}`,
    );
    await writeEntries(stagedHeldOut, heldOutEntries);
    if (separate) {
      await publish(stagedHeldOut, heldOutDir);
      published.push(heldOutDir);
    }
    await publish(stagedTask, taskDir);
    return { digest, heldOutDigest: `sha256:${sha256Hex(heldOut)}`, manifest, taskDir, heldOutDir, objects };
  } catch (error) {
    await Promise.all([...staged, ...published].map((dir) => rm(dir, { recursive: true, force: true })));
    throw error;
  }
}
