// A real data directory for the operators' view tests, made by the code that makes one in production: `abp init`'s key
// and trust root, documents published by registry/publication.ts and signed and logged by the real attestor, and a task
// bundle built from a real repository, stored in the real store, signed and logged as the freeze does.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBundle } from '../../src/freeze/bundle/build.js';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { documentText, publicationPaths, publishRegistry } from '../../src/registry/publication.js';
import { drawSchema, type AbpDraw } from '@abp/protocol/schemas/abp-draw';
import { registrySchema, type AbpRegistry } from '@abp/protocol/schemas/abp-registry';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { createAttestor } from '../../src/signing/attestor.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { createSigner } from '../../src/signing/signer.js';
import {
  createDrawRecordStatement,
  createRegistryVersionStatement,
  createTaskBundleStatement,
  taskBundleSubjectNames,
} from '@abp/protocol/signing/statement';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { bundleInput, createHistoryRepo } from '../freeze/bundle/support.js';

export interface SignedBundle {
  taskId: string;
  archive: Buffer;
  digest: string;
  heldOutDigest: string;
  /** The Sigstore bundle kept beside the archive in the store. */
  signature: string;
  signedAt: string;
}

export interface DataDir {
  home: string;
  key: SigningKey;
  trustRoot: TrustRoot;
  registry: AbpRegistry;
  draw: AbpDraw;
  bundle: SignedBundle;
}

const fixture = (name: string) => new URL(`../../../protocol/test/fixtures/documents/valid/${name}`, import.meta.url);

/** The same times every build, so two builds differ only in their randomized ECDSA signatures. */
export const SIGNED_AT = {
  registry: '2026-06-28T09:00:00Z',
  draw: '2026-07-02T14:11:09Z',
  bundle: '2026-07-10T01:00:00Z',
} as const;

/** Builds `<root>/home` with a registry version, a draw and one task bundle, each signed and logged (log entries 0..2). */
export async function buildDataDir(root: string): Promise<DataDir> {
  const home = join(root, 'home');
  const paths = signingPaths(home);
  const key = await createSigningKey(paths.keyDir);
  const trustRoot = createTrustRoot(key, '2026-01-01T00:00:00Z');
  await saveTrustRoot(paths.trustRoot, trustRoot);
  const signer = await createSigner({ keyDir: paths.keyDir });
  const attestor = createAttestor({
    signer,
    statementsDir: paths.statements,
    log: {
      dir: paths.log,
      origin: LOG_ORIGIN,
      key: () => Promise.resolve({ privateKey: key.privateKey, keyId: key.keyId }),
    },
  });

  const registry = registrySchema.parse(JSON.parse(await readFile(fixture('registry-2026Q3.json'), 'utf8')));
  const draw = drawSchema.parse(JSON.parse(await readFile(fixture('draw-2026Q3-424242.json'), 'utf8')));
  const published = join(home, 'published');
  await publishRegistry(published, registry);
  await mkdir(join(published, 'draws'), { recursive: true });
  await writeFile(publicationPaths(published).draw(draw.id), documentText(draw));
  await attestor.attest(
    'registry-version',
    createRegistryVersionStatement({
      version: registry.version,
      digest: registry.digest,
      previous: registry.previous,
      criteriaVersion: registry.criteriaVersion,
      repositories: registry.entries.length,
      signedAt: SIGNED_AT.registry,
    }),
  );
  await attestor.attest(
    'draw-record',
    createDrawRecordStatement({
      drawId: draw.id,
      digest: draw.digest,
      registryVersion: draw.registryVersion,
      seed: draw.seed,
      picks: draw.picks.length,
      backlogSnapshot: draw.backlogSnapshot.digest,
      signedAt: SIGNED_AT.draw,
    }),
  );

  const repo = await createHistoryRepo(join(root, 'upstream'));
  const input = bundleInput(repo);
  const built = await buildBundle(input);
  const store = new BundleStore(paths.bundles);
  const digest = await store.put(built.archive);
  const taskId = input.manifest.id;
  const statement = createTaskBundleStatement({
    taskId,
    bundleDigest: digest,
    heldOutDigest: built.heldOutDigest,
    signedAt: SIGNED_AT.bundle,
    freeze: {
      repo: 'abp/bundle-demo',
      baseCommit: repo.baseCommit,
      mergedPr: 'https://github.com/abp/bundle-demo/pull/8',
      failToPass: 2,
      passToPass: 1,
      flaky: 1,
      builder: 'abp/0.1.0',
    },
  });
  const signature = JSON.stringify(await signer.sign(statement), null, 2);
  await store.putSignature(digest, signature);
  await attestor.logSignature('task-bundle', taskBundleSubjectNames(taskId).bundle, signature);

  return {
    home,
    key,
    trustRoot,
    registry,
    draw,
    bundle: {
      taskId,
      archive: built.archive,
      digest,
      heldOutDigest: built.heldOutDigest,
      signature,
      signedAt: SIGNED_AT.bundle,
    },
  };
}
