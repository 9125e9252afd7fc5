// The SHA-256 fingerprint a run's progress journal is bound to: config, adapters, tasks, the grader's own source tree and
// the options that change results. A changed input cannot be resumed as though it belonged to the original run.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { canonicalJson } from '../../schemas/canonical-json.js';
import { compareCodeUnits } from '../../schemas/primitives.js';
import { repositoryRoot } from '../../stack/config.js';
import type { RunInputs } from '../config/load-run-inputs.js';

// The code that decides outcomes and numbers; data folders, dependencies and outputs are left out.
const SOURCE_FOLDERS = ['bin', 'cli', 'grader', 'schemas'];
const SOURCE_FILE = /\.(ts|js|json)$/;

/**
 * sha256 over "<path>\0<sha256 of content>\n" for every source file, sorted by code unit: locale-independent and
 * computable from a copied folder without git metadata (harness spec).
 */
export async function sourceTreeDigest(root: string = repositoryRoot): Promise<string> {
  const files: string[] = [];
  for (const folder of SOURCE_FOLDERS) {
    const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isFile() && SOURCE_FILE.test(entry.name)) files.push(relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'));
    }
  }
  files.sort(compareCodeUnits);
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0${createHash('sha256').update(await readFile(join(root, file))).digest('hex')}\n`);
  return `sha256:${hash.digest('hex')}`;
}

export interface FingerprintOptions {
  runUnsupported: boolean;
}

export async function runFingerprint(inputs: RunInputs, options: FingerprintOptions, sourceDigest?: string): Promise<string> {
  const material = {
    config: { ...inputs.config, id: null, reproduce: null },
    adapters: inputs.adapters,
    tasks: inputs.tasks.map((task) => ({ id: task.manifest.id, digest: task.digest })),
    source: sourceDigest ?? (await sourceTreeDigest()),
    options,
  };
  return `sha256:${createHash('sha256').update(canonicalJson(material)).digest('hex')}`;
}

/** "run-" and the fingerprint's first 12 hex digits: the same inputs name the same run, so a resume finds its folder. */
export function runIdOf(fingerprint: string): string {
  return `run-${fingerprint.slice('sha256:'.length, 'sha256:'.length + 12)}`;
}
