// `abp env inspect` and `abp env export`: what an environment holds (its layers, toolchains and install) and the OCI
// archive of it for `docker load`, read from the data directory's store with every blob checked against its digest.
import { resolve } from 'node:path';
import { EnvironmentStore, LABELS } from '../environments/index.js';
import { homePaths, resolveHome } from '../home.js';
import { createOutput, type OutputOptions } from './output.js';

export interface EnvStoreOptions extends OutputOptions {
  store?: string;
}

export function environmentStore(options: EnvStoreOptions): EnvironmentStore {
  return new EnvironmentStore(resolve(options.store ?? homePaths(resolveHome()).environments));
}

/** The environment's digest from a digest or a task's image reference (abp-env/owner-repo@sha256:…). */
export function digestOf(reference: string): string {
  const at = reference.lastIndexOf('@');
  return at === -1 ? reference : reference.slice(at + 1);
}

export async function envInspectCommand(reference: string, options: EnvStoreOptions): Promise<void> {
  const out = createOutput(options);
  const store = environmentStore(options);
  const image = await store.verify(digestOf(reference));
  const labels = image.config.config.Labels;
  const toolchains = Object.fromEntries(
    Object.entries(labels)
      .filter(([name]) => name.startsWith(LABELS.toolchainPrefix))
      .map(([name, version]) => [name.slice(LABELS.toolchainPrefix.length), version]),
  );
  const bytes = image.manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
  out.data({
    digest: image.digest,
    layers: image.manifest.layers,
    bytes,
    toolchains,
    env: image.config.config.Env,
    labels,
  });
  out.line(
    `environment ${image.digest} (${image.manifest.layers.length} layers, ${(bytes / 1024 / 1024).toFixed(1)} MiB, every layer verified)`,
  );
  for (const [name, version] of Object.entries(toolchains)) out.line(`  ${name} ${version}`);
  if (labels['org.abp.install'] !== undefined) out.line(`  install: ${labels['org.abp.install']}`);
  for (const layer of image.manifest.layers)
    out.line(`  layer ${layer.digest} ${(layer.size / 1024 / 1024).toFixed(1)} MiB`);
}

export async function envExportCommand(
  reference: string,
  options: EnvStoreOptions & { output: string; name?: string },
): Promise<void> {
  const out = createOutput(options);
  const store = environmentStore(options);
  const digest = digestOf(reference);
  const name = options.name ?? (reference.includes('@') ? reference.slice(0, reference.lastIndexOf('@')) : 'abp-env');
  await store.exportArchive(digest, resolve(options.output), name);
  out.data({ digest, archive: resolve(options.output), reference: name });
  out.line(`wrote ${resolve(options.output)}: OCI archive of ${digest} as ${name}`);
  out.line(
    `  load it with: skopeo copy oci-archive:${options.output} docker-daemon:${name}:latest   (or docker load -i ${options.output})`,
  );
}

export async function envImportCommand(archive: string, options: EnvStoreOptions): Promise<void> {
  const out = createOutput(options);
  const store = environmentStore(options);
  const image = await store.importArchive(resolve(archive));
  const bytes = image.manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
  out.data({ digest: image.digest, layers: image.manifest.layers, bytes });
  out.line(
    `imported ${archive} as base ${image.digest} (${image.manifest.layers.length} layers, ${(bytes / 1024 / 1024).toFixed(1)} MiB, every blob verified)`,
  );
  out.line(`  build on it: abp env build … --base-image ${image.digest}, or "base": "${image.digest}" in the recipe`);
}
