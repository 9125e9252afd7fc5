// `abp audit draw` re-derives a published draw offline from its record, the backlog snapshot it names and the opt-out
// list in force (spec §4.1); `abp audit log` checks the transparency log. Neither trusts the operator or reaches GitHub.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { readSnapshot } from '../registry/backlog/snapshot.js';
import { auditDraw } from '../registry/draw/audit.js';
import { registryDigest } from '../schemas/registry-digest.js';
import { signingPaths } from '../signing/home.js';
import { loadTrustRoot } from '../signing/trust-root.js';
import { resolveStackConfig } from '../stack/config.js';
import { auditLog } from '../transparency/audit.js';
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

/** `abp audit log`: every entry of the transparency log re-hashed, every checkpoint's signature and root checked. */
export async function auditLogCommand(options: { log?: string; trustRoot?: string; json?: boolean }): Promise<void> {
  const out = createOutput(options);
  const paths = signingPaths(resolveStackConfig().home);
  const trustRoot = await loadTrustRoot(options.trustRoot ?? paths.trustRoot);
  const dir = options.log ?? paths.log;
  const summary = await auditLog(dir, trustRoot.keys.map((key) => ({ publicKeyPem: key.publicKeyPem, keyId: key.keyId })));
  out.line(`log ${summary.origin ?? '(no checkpoint yet)'} at ${dir}: ${summary.size} entries, root ${summary.rootHash}`);
  out.line(`checkpoints at sizes ${summary.checkpointSizes.join(', ') || 'none'}: each signed by a trusted key, each matching the entries, each consistent with the last`);
  out.data(summary);
}
