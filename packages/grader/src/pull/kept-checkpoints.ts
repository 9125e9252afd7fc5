// The checkpoints a consumer keeps of each registry's transparency log: one file per registry, a JSON array of signed
// checkpoints, smallest first. `abp pull` proves the log it meets now extends the newest one kept (a log that rewrote or
// dropped what it had signed is caught), then keeps the new one; `abp audit log --from … --save` keeps what it audited.
// The file is exactly what `abp audit log --known <file>` reads, so an auditor can hold any log against it.
//
// Why the consumer's data directory and not the output folder: what was seen of a registry is the consumer's knowledge,
// like the trust root it pins beside it, and must outlive any one output folder; a folder per `-o` would start from
// nothing each time and let a registry rewrite its history between two pulls into two folders unnoticed.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import { parseSignedCheckpoint, type SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { registryName } from './client.js';
import { PullError } from './errors.js';

// File names stay well under the 255 bytes file systems allow; a longer registry name is named by its hash instead.
const MAX_NAME = 200;

/**
 * The file keeping the checkpoints of the registry at `from`, named by its host and path (the scheme left out: the same
 * server over http and https is one registry, whose views must agree). `registry.example.org` → `registry.example.org.json`.
 */
export function keptCheckpointsFile(dir: string, from: string): string {
  const name = encodeURIComponent(registryName(from));
  return join(
    dir,
    `${name.length <= MAX_NAME ? name : `sha256-${createHash('sha256').update(name).digest('hex')}`}.json`,
  );
}

/** The checkpoints kept in `file`, smallest first, each well-formed (signatures are checked where they are used); [] when none. */
export async function readKeptCheckpoints(file: string): Promise<SignedCheckpoint[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const fix = 'restore it, or remove it to start over (and lose the check against what it held)';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PullError(
      'invalid-setting',
      `${file}: the kept checkpoints are not JSON (${(error as Error).message}); ${fix}`,
      { cause: error },
    );
  }
  if (!Array.isArray(value))
    throw new PullError(
      'invalid-setting',
      `${file}: the kept checkpoints must be a JSON array of signed checkpoints; ${fix}`,
    );
  try {
    return value
      .map((item, position) => parseSignedCheckpoint(item, `${file} item ${position + 1}`))
      .sort((a, b) => a.checkpoint.size - b.checkpoint.size);
  } catch (error) {
    if (error instanceof TransparencyError)
      throw new PullError('invalid-setting', `${error.message}; ${fix}`, { cause: error });
    throw error;
  }
}

/**
 * Adds `checkpoints` to those kept in `file` (one per size; the file is written whole, temp file + fsync + rename). The
 * caller has proved them consistent with what is kept; two different heads of one size are refused all the same, since
 * keeping both would leave a file that convicts the log of nothing. Returns the checkpoints now kept.
 */
export async function keepCheckpoints(
  file: string,
  checkpoints: readonly SignedCheckpoint[],
): Promise<SignedCheckpoint[]> {
  const bySize = new Map<number, SignedCheckpoint>();
  for (const signed of [...(await readKeptCheckpoints(file)), ...checkpoints]) {
    const kept = bySize.get(signed.checkpoint.size);
    if (
      kept !== undefined &&
      (kept.checkpoint.rootHash !== signed.checkpoint.rootHash || kept.checkpoint.origin !== signed.checkpoint.origin)
    ) {
      throw new PullError(
        'log-inconsistent',
        `${file} keeps a checkpoint of size ${signed.checkpoint.size} with root ${kept.checkpoint.rootHash}, but the log now signs root ${signed.checkpoint.rootHash} for it: the log showed two histories`,
      );
    }
    // The first one kept stays: its timestamp is the earliest evidence of that head.
    if (kept === undefined) bySize.set(signed.checkpoint.size, signed);
  }
  const merged = [...bySize.values()].sort((a, b) => a.checkpoint.size - b.checkpoint.size);
  await mkdir(dirname(file), { recursive: true });
  // Rename, not link: the file is one consumer's growing record, replaced whole; two pulls racing keep one set or the other, both consistent.
  await writeFileDurably(file, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o644 });
  return merged;
}
