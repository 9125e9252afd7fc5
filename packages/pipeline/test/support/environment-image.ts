// A small real task environment for tests that carry one between stores: one layer holding one executable, and its
// image, in the store given.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Descriptor, EnvironmentStore, Image } from '@abp/grader/environments';

/** Builds the layer from files under `scratch` and stores it with its image in `store`. */
export async function oneLayerImage(
  store: EnvironmentStore,
  scratch: string,
): Promise<{ image: Image; layer: Descriptor }> {
  await mkdir(join(scratch, 'usr', 'bin'), { recursive: true });
  await writeFile(join(scratch, 'usr', 'bin', 'tool'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
  const layer = await store.putLayer(scratch);
  const image = await store.putImage([layer], {
    architecture: 'amd64',
    os: 'linux',
    config: { Env: ['PATH=/usr/bin'], WorkingDir: '/', Labels: {} },
    rootfs: { type: 'layers', diff_ids: [layer.digest] },
  });
  return { image, layer };
}
