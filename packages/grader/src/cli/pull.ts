// `abp pull <task> --from <url>`: a consumer fetches one frozen task from a registry's `abp serve`, verifies it against
// the trust root it pins and the registry's transparency log, and unpacks what the agent sees and the held-out part into
// separate folders. A refused pull exits 1 with its PullError code (in --json output too) and leaves nothing behind.
import { DEFAULT_DOWNLOAD_LIMITS } from '../pull/client.js';
import { pullTask } from '../pull/pull.js';
import { homePaths, resolveHome } from '../home.js';
import { createOutput, type OutputOptions } from './output.js';

export interface PullCommandOptions extends OutputOptions {
  from: string;
  /** The pinned trust root; the data directory's trust-root.json by default. */
  trustRoot?: string;
  /** Where `<task id>/` is made; the current folder by default. */
  output?: string;
  /** Where the log checkpoints seen of each registry are kept; the data directory's kept-checkpoints/ by default. */
  checkpoints?: string;
  /** Where the task's environment is fetched; the data directory's environments/ by default. */
  environments?: string;
  /** The most bytes one download may have. */
  maxBytes?: number;
  /** Seconds without a byte that end a download. */
  idleTimeout?: number;
  /** Seconds one download may take in all. */
  deadline?: number;
}

export async function pullCommand(taskId: string, options: PullCommandOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveHome();
  const trustRootPath = options.trustRoot ?? homePaths(home).trustRoot;
  const checkpointsDir = options.checkpoints ?? homePaths(home).keptCheckpoints;
  const pulled = await pullTask({
    taskId,
    from: options.from,
    trustRootPath,
    outputDir: options.output ?? '.',
    checkpointsDir,
    environments: options.environments ?? homePaths(home).environments,
    limits: {
      maxBytes: options.maxBytes ?? DEFAULT_DOWNLOAD_LIMITS.maxBytes,
      idleMs: (options.idleTimeout ?? DEFAULT_DOWNLOAD_LIMITS.idleMs / 1000) * 1000,
      deadlineMs: (options.deadline ?? DEFAULT_DOWNLOAD_LIMITS.deadlineMs / 1000) * 1000,
    },
  });
  const rotated =
    pulled.trustRoot.version === pulled.trustRoot.pinnedVersion
      ? ''
      : `, reached from the pinned version ${pulled.trustRoot.pinnedVersion}`;
  out.line(`pulled ${pulled.taskId} (${pulled.state}) from ${pulled.from}: ${pulled.digest}`);
  out.line(`  task (what the agent sees): ${pulled.taskDir}`);
  out.line(`  held-out part (keep it from the agent): ${pulled.heldOutDir}, ${pulled.heldOutDigest}`);
  const signer =
    pulled.signer.kind === 'keyed'
      ? `key ${pulled.signer.keyId}`
      : `${pulled.signer.identity} (${pulled.signer.issuer})`;
  out.line(`  signed by ${signer} at ${pulled.signedAt}; trust root version ${pulled.trustRoot.version}${rotated}`);
  const { log } = pulled;
  const history =
    log.keptSize === null
      ? 'the first checkpoint of this registry seen here'
      : `consistent with the checkpoint of size ${log.keptSize} kept before`;
  out.line(
    `  logged as entry ${log.index} of ${log.origin}, included in its checkpoint of size ${log.checkpointSize}: ${history}`,
  );
  if (log.loggedBeforeRetirement !== null) {
    out.line(
      `  the signing key is retired: the entry was covered by the checkpoint of size ${log.loggedBeforeRetirement.size} signed at ${log.loggedBeforeRetirement.timestamp}, before its retirement`,
    );
  }
  if (log.keptIn !== null) out.line(`  checkpoint kept in ${log.keptIn}`);
  const { environment } = pulled;
  if (environment !== null)
    out.line(
      `  environment ${environment.digest} in ${environment.store}: ${environment.fetched} blobs fetched (${(environment.bytesFetched / 1024 / 1024).toFixed(1)} MiB), ${environment.reused} already there, every one verified`,
    );
  if (pulled.goldenTrace !== null)
    out.line(
      `  golden trace (keep it from the agent): ${pulled.goldenTrace.path}, ${pulled.goldenTrace.digest} as signed`,
    );
  out.data(pulled);
}
