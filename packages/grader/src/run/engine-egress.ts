// Owns an engine's way out under the sandboxed policy: for an adapter that declares an egress allow-list, an egress
// proxy of its own per engine run (a trial, or its preflight), on a Unix socket in a private folder that is bound into
// the sandbox, opening connections to the listed hosts only (host.abp.internal being the grader's own loopback). What
// the proxy saw becomes the trial's engineProcess.egress. Without a list, or under trusted-local, there is no proxy: the
// engine then has no network at all, or the host's.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOST_LOOPBACK_NAME, type Adapter, type ExecutionPolicy } from '@abp/protocol/schemas/abp-adapters';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { groupAttempts, hostUpstream, startEgressProxy, type EgressAttempt } from '../execution/egress-proxy.js';
import { isAlive } from '../execution/liveness.js';

export type EgressRecord = NonNullable<NonNullable<AbpTrial['engineProcess']>['egress']>;

const FOLDER_PREFIX = 'abp-engine-egress-';

/**
 * Removes the egress folders under `root` (a socket, nothing else) of graders that were killed before they could:
 * this user's, whose process is gone. Another user's folder, a live grader's, or an older build's (no process in its
 * name) stays, and a folder that cannot be removed is left as it is: sweeping never stops a trial. A grader in another
 * pid namespace that shares this temporary folder looks dead from here; give it a TMPDIR of its own.
 */
export async function sweepDeadEgressFolders(root: string): Promise<void> {
  const uid = process.getuid?.();
  const names = await readdir(root).catch(() => []);
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(name)?.[1] ?? 0);
      if (pid <= 0 || isAlive(pid)) return;
      const folder = join(root, name);
      const owner = await stat(folder).then(
        (stats) => stats.uid,
        () => null,
      );
      if (owner === null || (uid !== undefined && owner !== uid)) return;
      await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    }),
  );
}

export interface EngineEgress {
  /** The proxy's socket, for SandboxSpec.egress or EnvironmentRun.egress. */
  socket: string;
  /** Stops the proxy (open tunnels are cut) and returns what it recorded. */
  close(): Promise<EgressRecord>;
}

export async function openEngineEgress(input: {
  adapter: Adapter;
  policy: ExecutionPolicy;
  hostEnv: Readonly<Record<string, string | undefined>>;
}): Promise<EngineEgress | null> {
  if (input.policy !== 'sandboxed' || input.adapter.egress.length === 0) return null;
  await sweepDeadEgressFolders(tmpdir());
  // A short path of its own: a Unix socket's path is limited to about 100 bytes, and a trial's folder can be longer.
  // Named by this process, so that a later grader can tell it from a live one's once this one is killed.
  const dir = await mkdtemp(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  try {
    const proxy = await startEgressProxy({
      listen: { path: join(dir, 'proxy.sock') },
      allow: input.adapter.egress,
      upstream: hostUpstream(input.hostEnv),
      hosts: { [HOST_LOOPBACK_NAME]: '127.0.0.1' },
    });
    let closed: Promise<EgressRecord> | null = null;
    return {
      socket: proxy.address,
      close: () =>
        (closed ??= (async () => {
          const attempts = proxy.attempts();
          await proxy.close();
          await rm(dir, { recursive: true, force: true });
          return egressRecord(input.adapter.egress, attempts);
        })()),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The allow-list as "host:port" and the attempts grouped by what happened, in a stable order. */
export function egressRecord(allow: Adapter['egress'], attempts: readonly EgressAttempt[]): EgressRecord {
  const order = (a: EgressRecord['attempts'][number], b: EgressRecord['attempts'][number]) =>
    a.host !== b.host
      ? a.host < b.host
        ? -1
        : 1
      : a.port - b.port || Number(b.allowed) - Number(a.allowed) || (a.error ?? '').localeCompare(b.error ?? '');
  return {
    allow: allow.flatMap((rule) => rule.ports.map((port) => `${rule.host}:${port}`)),
    attempts: groupAttempts(attempts).sort(order),
  };
}
