// `abp env build`: the environment a freeze of the repository at this commit would run in, built (or found cached)
// in the data directory's store, with the toolchains found inside and where the build log is.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createOutput, CommandFailed, type OutputOptions } from '@abp/grader/cli';
import { EnvironmentStore } from '@abp/grader/environments';
import { git } from '@abp/grader/execution';
import { homePaths } from '@abp/grader/home';
import { freezeEnvironment } from '../freeze/environment.js';
import { recipeOf } from './freeze.js';
import { resolveStackConfig } from '../worker/config.js';

export interface EnvBuildOptions extends OutputOptions {
  repo: string;
  base: string;
  gitDir: string;
  recipe?: string;
  baseImage?: string;
  store?: string;
}

export async function envBuildCommand(options: EnvBuildOptions): Promise<void> {
  const out = createOutput(options);
  const probe = await git(['-C', resolve(options.gitDir), 'rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: '/',
  });
  const gitDir = probe.stdout.toString('utf8').trim();
  const revParse = async (name: string): Promise<string> =>
    (await git(['--git-dir', gitDir, 'rev-parse', '--verify', name], { cwd: '/' })).stdout.toString('utf8').trim();
  const base = await revParse(`${options.base}^{commit}`);
  const tree = await revParse(`${base}^{tree}`);
  const detected = await recipeOf(options, gitDir);
  const recipe = options.baseImage === undefined ? detected : { ...detected, base: options.baseImage };
  const store = new EnvironmentStore(resolve(options.store ?? homePaths(resolveStackConfig().home).environments));
  const work = await mkdtemp(join(tmpdir(), 'abp-env-build-'));
  try {
    const built = await freezeEnvironment({
      source: { gitDir, objectDirs: [gitDir], baseCommit: base, patch: '' },
      tree,
      recipe,
      dir: join(work, 'repo'),
      store,
      timeoutMs: 1_800_000,
    });
    if (!built.built)
      throw new CommandFailed('stage-failed', `no environment for ${options.repo} at ${options.base}: ${built.detail}`);
    const { build } = built;
    out.data({ ...build, store: store.root, recipe });
    out.line(`environment ${build.digest}${build.cached ? ' (cached: built before from the same inputs)' : ''}`);
    for (const [name, version] of Object.entries(build.toolchains)) out.line(`  ${name} ${version}`);
    out.line(`  build log: blob ${build.log} in ${store.root}; took ${(build.durationMs / 1000).toFixed(1)} s`);
    out.line(`  inspect: abp env inspect ${build.digest}; export: abp env export ${build.digest} -o image.tar`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
