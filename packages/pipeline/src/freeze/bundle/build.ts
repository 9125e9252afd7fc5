// Builds a task bundle: one deterministic archive of the manifest, the issue, base's object stream and the separable
// held-out archive, addressed by its sha256. The same inputs give the same bytes on any machine (docs/bundle-format.md).
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { formatIssues } from '@abp/protocol/schemas/issues';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { BundleError } from '@abp/protocol/bundle/errors';
import {
  parseExpectedResults,
  serializeExpectedResults,
  type ExpectedResults,
} from '@abp/protocol/bundle/expected-results';
import { writeObjectStream } from '@abp/grader/bundle';
import {
  EXPECTED_RESULTS_ENTRY,
  GOLDEN_PATCH_ENTRY,
  HELD_OUT_ENTRY,
  HELD_OUT_FILES_PREFIX,
  ISSUE_ENTRY,
  OBJECTS_ENTRY,
  TASK_ENTRY,
} from '@abp/protocol/bundle/layout';
import { writeTar } from '@abp/protocol/bundle/tar';

export interface BundleInput {
  /** Validated with taskSchema; stored as canonical JSON. */
  manifest: AbpTask;
  /** The captured issue (title, body) as the freeze got it. */
  issueText: string;
  /** A repository holding baseCommit (work tree or git directory); only base's closure is taken from it. */
  gitDir: string;
  baseCommit: string;
  heldOut: {
    /** Test files, workspace-relative paths. */
    files: Array<{ path: string; content: Buffer }>;
    expected: ExpectedResults;
    goldenPatch: string;
  };
}

export interface BuiltBundle {
  archive: Buffer;
  /** "sha256:<hex>" of the archive: the bundle's address. */
  digest: string;
  /** "sha256:<hex>" of held-out.tar, the second subject of the signed statement. */
  heldOutDigest: string;
  /** Files in the bundle: the outer archive's entries plus held-out.tar's. */
  entries: number;
}

export async function buildBundle(input: BundleInput): Promise<BuiltBundle> {
  const parsed = taskSchema.safeParse(input.manifest);
  if (!parsed.success)
    throw new BundleError(
      'invalid-manifest',
      `the manifest of task ${JSON.stringify(input.manifest.id)} is not a valid abp-task/v1 manifest:\n${formatIssues(parsed.error.issues)}`,
    );
  const manifest = parsed.data;
  if (manifest.source.kind !== 'github-issue')
    throw new BundleError(
      'inconsistent-input',
      `task ${manifest.id} is a fixture; bundles are built for github-issue tasks, whose repository they carry`,
    );
  if (manifest.source.baseCommit !== input.baseCommit) {
    throw new BundleError(
      'inconsistent-input',
      `task ${manifest.id} pins source.baseCommit ${manifest.source.baseCommit}, but the bundle was asked for ${input.baseCommit}; build from the manifest's base commit`,
    );
  }
  const expected = parseExpectedResults(
    input.heldOut.expected,
    `${HELD_OUT_ENTRY}: ${EXPECTED_RESULTS_ENTRY} of task ${manifest.id}`,
  );

  const heldOutEntries = [
    ...input.heldOut.files.map((file) => ({ path: `${HELD_OUT_FILES_PREFIX}${file.path}`, content: file.content })),
    { path: EXPECTED_RESULTS_ENTRY, content: serializeExpectedResults(expected) },
    { path: GOLDEN_PATCH_ENTRY, content: Buffer.from(input.heldOut.goldenPatch, 'utf8') },
  ];
  const heldOut = writeTar(heldOutEntries, `${HELD_OUT_ENTRY} of task ${manifest.id}`);
  const outerEntries = [
    { path: TASK_ENTRY, content: Buffer.from(canonicalJson(manifest), 'utf8') },
    { path: ISSUE_ENTRY, content: Buffer.from(input.issueText, 'utf8') },
    { path: OBJECTS_ENTRY, content: await writeObjectStream(input.gitDir, input.baseCommit) },
    { path: HELD_OUT_ENTRY, content: heldOut },
  ];
  const archive = writeTar(outerEntries, `bundle of task ${manifest.id}`);
  return {
    archive,
    digest: `sha256:${sha256Hex(archive)}`,
    heldOutDigest: `sha256:${sha256Hex(heldOut)}`,
    entries: outerEntries.length + heldOutEntries.length,
  };
}
