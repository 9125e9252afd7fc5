// `abp unpack <bundle> -o <dir>`: a task bundle read from a file becomes the task folder `abp run` reads, with the checks
// and the refusal codes of `abp pull` (pull/unpack.ts). A refused bundle exits 1 with its PullError code (in --json
// output too) and leaves nothing behind.
import { unpackTask } from '../pull/unpack.js';
import { homePaths, resolveHome } from '../home.js';
import { createOutput, type OutputOptions } from './output.js';

export interface UnpackCommandOptions extends OutputOptions {
  output: string;
  signature?: string;
  /** The pinned trust root; the data directory's trust-root.json by default. */
  trustRoot?: string;
  /** The registry's abp serve, to prove the signature logged there. */
  from?: string;
  checkpoints?: string;
  environments?: string;
}

export async function unpackCommand(bundle: string, options: UnpackCommandOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveHome();
  const unpacked = await unpackTask({
    archive: bundle,
    trustRootPath: options.trustRoot ?? homePaths(home).trustRoot,
    outputDir: options.output,
    environments: options.environments ?? homePaths(home).environments,
    ...(options.signature === undefined ? {} : { signature: options.signature }),
    ...(options.from === undefined
      ? {}
      : { from: options.from, checkpointsDir: options.checkpoints ?? homePaths(home).keptCheckpoints }),
  });
  out.line(`unpacked ${unpacked.taskId} from ${unpacked.archive}: ${unpacked.digest}`);
  out.line(`  task (what the agent sees): ${unpacked.taskDir}`);
  out.line(`  held-out part (keep it from the agent): ${unpacked.heldOutDir}, ${unpacked.heldOutDigest}`);
  const signer =
    unpacked.signer.kind === 'keyed'
      ? `key ${unpacked.signer.keyId}`
      : `${unpacked.signer.identity} (${unpacked.signer.issuer})`;
  out.line(`  signed by ${signer} at ${unpacked.signedAt}; trust root version ${unpacked.trustRoot.version}`);
  const { log } = unpacked;
  out.line(
    log === null
      ? '  the transparency log was not consulted: give --from <the registry abp serve> to prove the signature logged'
      : `  logged as entry ${log.index} of ${log.origin}, included in its checkpoint of size ${log.checkpointSize}`,
  );
  const { environment } = unpacked;
  if (environment !== null)
    out.line(
      `  environment ${environment.digest} in ${environment.store}: ${environment.fetched} blobs fetched, ${environment.reused} already there, every one verified`,
    );
  if (unpacked.goldenTrace !== null)
    out.line(
      `  golden trace (keep it from the agent): ${unpacked.goldenTrace.path}, ${unpacked.goldenTrace.digest} as signed`,
    );
  out.data(unpacked);
}
