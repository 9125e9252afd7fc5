// `abp export training`: the frozen tasks of the data directory as abp-training/v1 JSONL (export/training.ts), verified
// against a trust root, practice tasks only unless --include-scored. Reads files only: no worker needs to run.
import { planTrainingExport, writeTrainingExport } from '../export/training.js';
import { signingPaths } from '../signing/home.js';
import { loadTrustRoot } from '@abp/protocol/signing/trust-root';
import { resolveStackConfig } from '../worker/config.js';
import { createOutput, type OutputOptions } from '@abp/grader/cli';

export interface ExportTrainingOptions extends OutputOptions {
  /** The JSONL file to write (replaced atomically). */
  output: string;
  /** The pinned trust root (default: the data directory's trust-root.json). */
  trustRoot?: string;
  includeScored?: boolean;
}

export async function exportTrainingCommand(options: ExportTrainingOptions): Promise<void> {
  const out = createOutput(options);
  const paths = signingPaths(resolveStackConfig().home);
  const trustRootPath = options.trustRoot ?? paths.trustRoot;
  const trustRoot = await loadTrustRoot(trustRootPath);
  const includeScored = options.includeScored === true;
  const plan = await planTrainingExport({
    bundleDir: paths.bundles,
    statementsDir: paths.statements,
    trustRoot,
    includeScored,
  });
  const scored = plan.records.filter((record) => record.set === 'scored');
  if (scored.length > 0) {
    // Spec §4.4: a scored task in training data contaminates the benchmark for every model trained on it.
    out.error(
      `abp: warning: --include-scored exports ${scored.length} task${scored.length === 1 ? '' : 's'} still in the scored set (${scored.map((record) => record.taskId).join(', ')}): a model trained on them is contaminated for the benchmark; keep this file away from training runs that will be scored`,
    );
  }
  const written = await writeTrainingExport(options.output, plan.records);
  out.line(
    `wrote ${plan.records.length} task${plan.records.length === 1 ? '' : 's'} (${plan.records.length - scored.length} practice, ${scored.length} scored) to ${written.path}, ${written.sha256}`,
  );
  out.line(`every bundle verified against ${trustRootPath} (trust root version ${trustRoot.version})`);
  if (plan.excludedScored.length > 0)
    out.line(
      `left out ${plan.excludedScored.length} task${plan.excludedScored.length === 1 ? '' : 's'} still scored (no signed aging statement yet): ${plan.excludedScored.map((task) => task.taskId).join(', ')}`,
    );
  if (plan.superseded.length > 0)
    out.line(
      `${plan.superseded.length} older bundle${plan.superseded.length === 1 ? '' : 's'} of exported tasks not exported: ${plan.superseded.map((ref) => `${ref.taskId} ${ref.bundleDigest}`).join(', ')}`,
    );
  out.data({
    output: written.path,
    sha256: written.sha256,
    bytes: written.bytes,
    trustRoot: trustRootPath,
    tasks: plan.records.map((record) => ({
      taskId: record.taskId,
      set: record.set,
      bundleDigest: record.bundleDigest,
    })),
    excludedScored: plan.excludedScored,
    superseded: plan.superseded,
  });
}
