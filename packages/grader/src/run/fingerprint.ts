// The SHA-256 fingerprint a run's progress journal is bound to: config, adapters, tasks, the grader's own source tree and
// the options that change results. A changed input cannot be resumed as though it belonged to the original run.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { packageRoot } from '../package-root.js';
import type { RunInputs } from '../config/load-run-inputs.js';

// The code and data that decide outcomes and numbers, of the grader and of the protocol package it reads documents
// with: what runs (bin/, dist/) and the published tables (data/). Sources, dependencies and outputs are left out.
const SOURCE_FOLDERS = ['bin', 'data', 'dist'];
const SOURCE_FILE = /\.(js|json)$/;

/** The package folders whose files the digest covers, named as they are published. */
export function graderPackageRoots(): Record<string, string> {
  return {
    '@abp/grader': packageRoot,
    '@abp/protocol': dirname(fileURLToPath(import.meta.resolve('@abp/protocol/package.json'))),
  };
}

/**
 * sha256 over "<package>/<path>\0<sha256 of content>\n" for every file, sorted by code unit: locale-independent and
 * computable from a copied folder without git metadata (harness spec).
 */
export async function sourceTreeDigest(
  roots: Readonly<Record<string, string>> = graderPackageRoots(),
): Promise<string> {
  const files: { name: string; path: string }[] = [];
  for (const [packageName, root] of Object.entries(roots)) {
    for (const folder of SOURCE_FOLDERS) {
      const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile() || !SOURCE_FILE.test(entry.name)) continue;
        const path = join(entry.parentPath, entry.name);
        files.push({ name: `${packageName}/${relative(root, path).split(sep).join('/')}`, path });
      }
    }
  }
  files.sort((a, b) => compareCodeUnits(a.name, b.name));
  const hash = createHash('sha256');
  for (const file of files)
    hash.update(
      `${file.name}\0${createHash('sha256')
        .update(await readFile(file.path))
        .digest('hex')}\n`,
    );
  return `sha256:${hash.digest('hex')}`;
}

export interface FingerprintOptions {
  runUnsupported: boolean;
}

export async function runFingerprint(
  inputs: RunInputs,
  options: FingerprintOptions,
  sourceDigest?: string,
): Promise<string> {
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
