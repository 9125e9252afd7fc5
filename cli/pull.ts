// `abp pull <task> --from <url>`: a consumer fetches one frozen task from a registry's `abp serve`, verifies it against
// the trust root it pins, and unpacks what the agent sees and the held-out part into separate folders. A refused pull
// exits 1 with its PullError code (in --json output too) and leaves nothing behind.
import { pullTask } from '../distribution/pull.js';
import { signingPaths } from '../signing/home.js';
import { resolveStackConfig } from '../stack/config.js';
import { createOutput, type OutputOptions } from './output.js';

export interface PullCommandOptions extends OutputOptions {
  from: string;
  /** The pinned trust root; the data directory's trust-root.json by default. */
  trustRoot?: string;
  /** Where `<task id>/` is made; the current folder by default. */
  output?: string;
}

export async function pullCommand(taskId: string, options: PullCommandOptions): Promise<void> {
  const out = createOutput(options);
  const trustRootPath = options.trustRoot ?? signingPaths(resolveStackConfig().home).trustRoot;
  const pulled = await pullTask({ taskId, from: options.from, trustRootPath, outputDir: options.output ?? '.' });
  const rotated = pulled.trustRoot.version === pulled.trustRoot.pinnedVersion ? '' : `, reached from the pinned version ${pulled.trustRoot.pinnedVersion}`;
  out.line(`pulled ${pulled.taskId} (${pulled.state}) from ${pulled.from}: ${pulled.digest}`);
  out.line(`  task (what the agent sees): ${pulled.taskDir}`);
  out.line(`  held-out part (keep it from the agent): ${pulled.heldOutDir}, ${pulled.heldOutDigest}`);
  const signer = pulled.signer.kind === 'keyed' ? `key ${pulled.signer.keyId}` : `${pulled.signer.identity} (${pulled.signer.issuer})`;
  out.line(`  signed by ${signer} at ${pulled.signedAt}; trust root version ${pulled.trustRoot.version}${rotated}`);
  out.data(pulled);
}
