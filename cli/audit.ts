// `abp audit draw` re-derives a published draw offline from its record, the backlog snapshot it names and the opt-out
// list in force (spec §4.1); `abp audit log` checks the transparency log. Neither trusts the operator or reaches GitHub.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { readSnapshot } from '../registry/backlog/snapshot.js';
import { auditDraw } from '../registry/draw/audit.js';
import { registryDigest } from '../schemas/registry-digest.js';
import { LOG_ORIGIN, signingPaths } from '../signing/home.js';
import { loadTrustRoot } from '../signing/trust-root.js';
import { resolveStackConfig } from '../stack/config.js';
import { auditLog, verifyConsistencyOf, verifyInclusionOf } from '../transparency/audit.js';
import { parseSignedCheckpoint } from '../transparency/formats.js';
import { openLog } from '../transparency/log.js';
import { CommandFailed, createOutput } from './output.js';

export interface AuditDrawOptions {
  snapshot: string;
  optOuts?: string;
  registry?: string;
  json?: boolean;
}

const optOutList = z.array(z.string().min(1));

async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CommandFailed('invalid-documents', `${path}: cannot read the ${what} (${error.code ?? error.message})`);
  });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CommandFailed('invalid-documents', `${path}: the ${what} is not valid JSON (${(error as Error).message})`);
  }
}

export async function auditDrawCommand(recordPath: string, options: AuditDrawOptions): Promise<void> {
  const out = createOutput(options);
  const record = await readJson(recordPath, 'draw record');
  const snapshot = await readSnapshot(options.snapshot);
  let optOuts = new Set<string>();
  if (options.optOuts) {
    const parsed = optOutList.safeParse(await readJson(options.optOuts, 'opt-out list'));
    if (!parsed.success) throw new CommandFailed('invalid-documents', `${options.optOuts}: must be a JSON array of "owner/name" strings, the opt-out list in force when the draw was made`);
    optOuts = new Set(parsed.data);
  }
  const registry = options.registry ? await readJson(options.registry, 'registry document') : null;
  const audit = auditDraw({
    record,
    snapshot,
    optOuts,
    ...(registry !== null && typeof registry === 'object' ? { registryDigest: registryDigest(registry as Record<string, unknown>) } : {}),
  });
  out.data(audit);
  if (audit.match) {
    out.line(`match: ${recordPath} re-derives from ${options.snapshot}${options.registry ? ` and ${options.registry}` : ' (registry digest taken from the record: pass --registry to check it)'}`);
    return;
  }
  throw new CommandFailed('invalid-documents', `no match: ${audit.firstDifference}`, options.json === true);
}

export interface AuditLogOptions {
  log?: string;
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
  if (match === null) throw new CommandFailed('invalid-documents', `--consistency ${text}: give two checkpoint sizes as <old>:<new>, e.g. 3:7`);
  return [Number(match[1]), Number(match[2])];
}

/**
 * `abp audit log`: every entry re-hashed, every checkpoint's signature and root checked, each checkpoint consistent with
 * the one before (and with any kept from earlier). `--entry` and `--consistency` also run the checks a consumer makes
 * from a single proof, with only checkpoints in hand.
 */
export async function auditLogCommand(options: AuditLogOptions): Promise<void> {
  const out = createOutput(options);
  const paths = signingPaths(resolveStackConfig().home);
  const trustRoot = await loadTrustRoot(options.trustRoot ?? paths.trustRoot);
  const dir = options.log ?? paths.log;
  const keys = trustRoot.keys.map((key) => ({ publicKeyPem: key.publicKeyPem, keyId: key.keyId }));
  const knownCheckpoints = (await readKnownCheckpoints(options.known ?? [])).map((value, index) => parseSignedCheckpoint(value, `kept checkpoint ${index + 1}`));
  const summary = await auditLog(dir, keys, { knownCheckpoints });
  out.line(`log ${summary.origin ?? '(no checkpoint yet)'} at ${dir}: ${summary.size} entries, root ${summary.rootHash}`);
  out.line(`checkpoints at sizes ${summary.checkpointSizes.join(', ') || 'none'}: each signed by a trusted key, each matching the entries, each consistent with the last`);
  if (knownCheckpoints.length > 0) out.line(`${knownCheckpoints.length} kept checkpoint(s) consistent with the log`);

  const result: Record<string, unknown> = { ...summary };
  if (options.entry !== undefined || options.consistency !== undefined) {
    const log = await openLog(dir, summary.origin ?? LOG_ORIGIN);
    const checkpoints = await log.checkpoints();
    if (options.entry !== undefined) {
      const newest = checkpoints.at(-1);
      const entry = log.entries()[options.entry];
      if (entry === undefined) throw new CommandFailed('invalid-documents', `--entry ${options.entry}: the log holds entries 0 to ${log.size() - 1}`);
      if (newest === undefined || newest.checkpoint.size <= options.entry) {
        throw new CommandFailed('invalid-documents', `--entry ${options.entry}: no checkpoint covers it yet (the newest is of size ${newest?.checkpoint.size ?? 0})`);
      }
      const proof = log.proveInclusion(options.entry, newest.checkpoint.size);
      verifyInclusionOf(entry, proof, newest, keys);
      out.line(`entry ${entry.index} (${entry.kind} ${entry.subject}, ${entry.digest}) is included in the checkpoint of size ${proof.size}: ${proof.path.length} hashes`);
      result.inclusion = { entry, proof, checkpoint: newest };
    }
    if (options.consistency !== undefined) {
      const [oldSize, newSize] = parseSizes(options.consistency);
      const bySize = (size: number) => {
        const found = checkpoints.find((checkpoint) => checkpoint.checkpoint.size === size);
        if (found === undefined) throw new CommandFailed('invalid-documents', `--consistency: no checkpoint of size ${size} is stored (sizes ${checkpoints.map((c) => c.checkpoint.size).join(', ') || 'none'})`);
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
  out.data(result);
}
