// A task environment carried between machines through the run store: every blob of the image (manifest, config,
// layers) goes over unchanged, because the environment store and the run store both name a blob by the sha256 of its
// bytes. Used by distributed grading (the run's environments, to each trial worker) and by the freeze (the environment
// a freeze worker built, to the machine that publishes it).
import { rm } from 'node:fs/promises';
import type { EnvironmentStore } from '@abp/grader/environments';
import type { RunStore } from './store.js';

/** An image by its manifest digest, with every blob it is made of. */
export interface CarriedEnvironment {
  image: string;
  blobs: string[];
}

/** Puts every blob of `image` in the run store, the image checked whole first, so a damaged one fails here. */
export async function putEnvironment(
  store: RunStore,
  environments: EnvironmentStore,
  image: string,
): Promise<CarriedEnvironment> {
  const { manifest } = await environments.verify(image);
  const blobs = [image, manifest.config.digest, ...manifest.layers.map((layer) => layer.digest)];
  // A blob never changes once stored, so a store on the same file system may share it rather than copy it.
  for (const blob of blobs) await store.putFile(environments.blobPath(blob), { immutable: true });
  return { image, blobs };
}

/** Brings each blob `environments` lacks from the run store, then verifies the image whole. */
export async function getEnvironment(
  store: RunStore,
  environments: EnvironmentStore,
  carried: CarriedEnvironment,
): Promise<void> {
  for (const blob of carried.blobs) {
    if (await environments.has(blob)) continue;
    const file = await environments.scratch('blob');
    try {
      await store.getFile(blob, file);
      await environments.adoptFile(file);
    } finally {
      await rm(file, { force: true });
    }
  }
  await environments.verify(carried.image);
}
