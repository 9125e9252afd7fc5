// `abp audit draw` re-derives a published draw offline from its record, the backlog snapshot it names and the opt-out
// list in force (spec §4.1); `abp audit log` checks the transparency log, in a folder or as a registry's `abp serve`
// serves it. Neither trusts the operator or reaches GitHub.
import { mkdtemp, rm } from 'node:fs/promises';
import { checkRegularFile, readBoundedFile } from '@abp/protocol/files/bounded-read';
import { MAX_DOCUMENT_BYTES, MAX_SNAPSHOT_BYTES } from '../input-limits.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { createRegistryClient } from '../pull/client.js';
import { keepCheckpoints, keptCheckpointsFile, readKeptCheckpoints } from '../pull/kept-checkpoints.js';
import { logKeysOf } from '../pull/log-proof.js';
import { loadPinnedTrustRoot, walkTrustRoot } from '../pull/pull.js';
import { downloadLog } from '../pull/remote-log.js';
import { readSnapshot } from '@abp/protocol/backlog/snapshot';
import { auditDraw } from '@abp/protocol/draw/audit';
import { registryDigest } from '@abp/protocol/schemas/registry-digest';
import { loadTrustRoot } from '@abp/protocol/signing/trust-root';
import { homePaths, resolveHome } from '../home.js';
import { auditLog, verifyConsistencyOf, verifyInclusionOf } from '../audit/log-audit.js';
import {
  LOG_ORIGIN,
  parseSignedCheckpoint,
  type CheckpointVerifyingKey,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import { openLog } from '@abp/protocol/transparency/log';
import { CommandFailed, createOutput, type Output } from './output.js';

export interface AuditDrawOptions {
  snapshot: string;
  optOuts?: string;
  registry?: string;
  json?: boolean;
}

const optOutList = z.array(z.string().min(1));

async function readJson(path: string, what: string): Promise<unknown> {
  const text = (await readBoundedFile(path, { maxBytes: MAX_DOCUMENT_BYTES, what: `the ${what}` })).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CommandFailed(
      'invalid-documents',
      `${path}: the ${what} is not valid JSON (${(error as Error).message})`,
    );
  }
}

export async function auditDrawCommand(recordPath: string, options: AuditDrawOptions): Promise<void> {
  const out = createOutput(options);
  // A snapshot is streamed line by line, but only from a regular file of a sane size; checked before anything is read.
  await checkRegularFile(options.snapshot, { maxBytes: MAX_SNAPSHOT_BYTES, what: 'a backlog snapshot' });
  const record = await readJson(recordPath, 'draw record');
  const snapshot = await readSnapshot(options.snapshot);
  let optOuts = new Set<string>();
  if (options.optOuts) {
    const parsed = optOutList.safeParse(await readJson(options.optOuts, 'opt-out list'));
    if (!parsed.success)
      throw new CommandFailed(
        'invalid-documents',
        `${options.optOuts}: must be a JSON array of "owner/name" strings, the opt-out list in force when the draw was made`,
      );
    optOuts = new Set(parsed.data);
  }
  const registry = options.registry ? await readJson(options.registry, 'registry document') : null;
  const audit = auditDraw({
    record,
    snapshot,
    optOuts,
    ...(registry !== null && typeof registry === 'object'
      ? { registryDigest: registryDigest(registry as Record<string, unknown>) }
      : {}),
  });
  out.data(audit);
  if (audit.match) {
    out.line(
      `match: ${recordPath} re-derives from ${options.snapshot}${options.registry ? ` and ${options.registry}` : ' (registry digest taken from the record: pass --registry to check it)'}`,
    );
    return;
  }
  throw new CommandFailed('invalid-documents', `no match: ${audit.firstDifference}`, options.json === true);
}

export interface AuditLogOptions {
  log?: string;
  /** A registry's `abp serve`: audit the log it serves, downloaded into a temporary folder deleted afterwards. */
  from?: string;
  /**
   * With --from: the folder of kept checkpoints (`abp pull --checkpoints`). The ones kept of this registry are held
   * against the log too, and after a clean audit the downloaded ones are kept with them for next time.
   */
  save?: string;
  trustRoot?: string;
  /** Files of signed checkpoints kept from earlier (one checkpoint or an array per file). */
  known?: string[];
  /** Prove this entry's inclusion in the newest checkpoint, as a consumer holding only that checkpoint checks it. */
  entry?: number;
  /** "<old>:<new>": prove the stored checkpoint of size new extends the one of size old. */
  consistency?: string;
  json?: boolean;
}

async function readKnownCheckpoints(files: readonly string[]): Promise<unknown[]> {
  const lists = await Promise.all(files.map(async (file) => [await readJson(file, 'kept checkpoint')].flat()));
  return lists.flat();
}

function parseSizes(text: string): [number, number] {
  const match = /^(\d+):(\d+)$/.exec(text);
  if (match === null)
    throw new CommandFailed(
      'invalid-documents',
      `--consistency ${text}: give two checkpoint sizes as <old>:<new>, e.g. 3:7`,
    );
  return [Number(match[1]), Number(match[2])];
}

/**
 * `abp audit log`: every entry re-hashed, every checkpoint's signature and root checked, each checkpoint consistent with
 * the one before (and with any kept from earlier). `--entry` and `--consistency` also run the checks a consumer makes
 * from a single proof, with only checkpoints in hand. With `--from` the log is a registry's, downloaded through its API
 * and checked against the trust root walked forward from the pinned one, as `abp pull` walks it.
 */
export async function auditLogCommand(options: AuditLogOptions): Promise<void> {
  const out = createOutput(options);
  const paths = homePaths(resolveHome());
  const trustRootPath = options.trustRoot ?? paths.trustRoot;
  const knownCheckpoints = (await readKnownCheckpoints(options.known ?? [])).map((value, index) =>
    parseSignedCheckpoint(value, `kept checkpoint ${index + 1}`),
  );
  if (options.from === undefined) {
    if (options.save !== undefined)
      throw new CommandFailed(
        'invalid-documents',
        '--save keeps the checkpoints of a log audited with --from <url>; for a local log, keep copies of its checkpoints/ files and pass them with --known',
      );
    const trustRoot = await loadTrustRoot(trustRootPath);
    const dir = options.log ?? paths.log;
    out.data(await auditFolder(dir, dir, logKeysOf(trustRoot), knownCheckpoints, options, out));
    return;
  }
  if (options.log !== undefined)
    throw new CommandFailed(
      'invalid-documents',
      `--log ${options.log} and --from ${options.from} name two logs: audit a folder with --log, or a registry's served log with --from`,
    );

  const client = createRegistryClient(options.from);
  const trustRoot = await walkTrustRoot(await loadPinnedTrustRoot(trustRootPath), client);
  const keptIn = options.save === undefined ? null : keptCheckpointsFile(resolve(options.save), options.from);
  const kept = keptIn === null ? [] : await readKeptCheckpoints(keptIn);
  const temporary = await mkdtemp(join(tmpdir(), 'abp-audit-log-'));
  try {
    const dir = join(temporary, 'log');
    const downloaded = await downloadLog(client, dir);
    const result = await auditFolder(
      dir,
      options.from,
      logKeysOf(trustRoot),
      [...knownCheckpoints, ...kept],
      options,
      out,
    );
    result.trustRootVersion = trustRoot.version;
    if (keptIn !== null) {
      const now = await keepCheckpoints(keptIn, downloaded.checkpoints);
      out.line(
        `${downloaded.checkpoints.length} checkpoint(s) downloaded; ${now.length} kept in ${keptIn} for the next audit or pull`,
      );
      result.keptIn = keptIn;
    }
    out.data(result);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}

/** The audit of the log folder `dir` (`label` names it to a person), with the --entry and --consistency proofs asked for. */
async function auditFolder(
  dir: string,
  label: string,
  keys: CheckpointVerifyingKey[],
  knownCheckpoints: SignedCheckpoint[],
  options: AuditLogOptions,
  out: Output,
): Promise<Record<string, unknown>> {
  const summary = await auditLog(dir, keys, { knownCheckpoints });
  out.line(
    `log ${summary.origin ?? '(no checkpoint yet)'} at ${label}: ${summary.size} entries, root ${summary.rootHash}`,
  );
  out.line(
    `checkpoints at sizes ${summary.checkpointSizes.join(', ') || 'none'}: each signed by a trusted key, each matching the entries, each consistent with the last`,
  );
  if (knownCheckpoints.length > 0) out.line(`${knownCheckpoints.length} kept checkpoint(s) consistent with the log`);

  const result: Record<string, unknown> = { ...summary };
  if (options.entry !== undefined || options.consistency !== undefined) {
    const log = await openLog(dir, summary.origin ?? LOG_ORIGIN);
    const checkpoints = await log.checkpoints();
    if (options.entry !== undefined) {
      const newest = checkpoints.at(-1);
      const entry = log.entries()[options.entry];
      if (entry === undefined)
        throw new CommandFailed(
          'invalid-documents',
          `--entry ${options.entry}: the log holds entries 0 to ${log.size() - 1}`,
        );
      if (newest === undefined || newest.checkpoint.size <= options.entry) {
        throw new CommandFailed(
          'invalid-documents',
          `--entry ${options.entry}: no checkpoint covers it yet (the newest is of size ${newest?.checkpoint.size ?? 0})`,
        );
      }
      const proof = log.proveInclusion(options.entry, newest.checkpoint.size);
      verifyInclusionOf(entry, proof, newest, keys);
      out.line(
        `entry ${entry.index} (${entry.kind} ${entry.subject}, ${entry.digest}) is included in the checkpoint of size ${proof.size}: ${proof.path.length} hashes`,
      );
      result.inclusion = { entry, proof, checkpoint: newest };
    }
    if (options.consistency !== undefined) {
      const [oldSize, newSize] = parseSizes(options.consistency);
      const bySize = (size: number) => {
        const found = checkpoints.find((checkpoint) => checkpoint.checkpoint.size === size);
        if (found === undefined)
          throw new CommandFailed(
            'invalid-documents',
            `--consistency: no checkpoint of size ${size} is stored (sizes ${checkpoints.map((c) => c.checkpoint.size).join(', ') || 'none'})`,
          );
        return found;
      };
      const older = bySize(oldSize);
      const newer = bySize(newSize);
      const proof = log.proveConsistency(oldSize, newSize);
      verifyConsistencyOf(proof, older, newer, keys);
      out.line(`the checkpoint of size ${newSize} extends the one of size ${oldSize}: ${proof.path.length} hashes`);
      result.consistency = { proof, older, newer };
    }
  }
  return result;
}
