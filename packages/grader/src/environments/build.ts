// Owns building an environment for a repository at a commit: a Debian base (mmdebstrap) with the ecosystem's
// toolchain, then a layer holding what the repository's install step wrote (a virtualenv, the Go module cache,
// node_modules taken out of the checkout), made with no network but an egress proxy that reaches the registries the
// host's configuration names (carried in, never published) and nothing else.
// Every layer and image is cached by its inputs, so the next task of the same repository reuses what did not change;
// the build log and the toolchain versions found inside are recorded beside the image.
import { createHash, randomUUID } from 'node:crypto';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { arch as hostArch, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { contentDigest } from '@abp/protocol/schemas/registry-digest';
import { runBounded, runProgram, type CommandResult } from '../execution/index.js';
import { hostUpstream, startEgressProxy, summarizeAttempts, type EgressProxy } from '../execution/egress-proxy.js';
import { parseCommandLine } from '../verification/command-line.js';
import { EnvironmentError } from './errors.js';
import { registryAccess } from './registry-access.js';
import { CHECKOUT, ENV_PREFIX, environmentVariables, LABELS, type EnvironmentRun } from './runtime.js';
import type { Descriptor, EnvironmentStore, Image, ImageConfig } from './store.js';
import {
  basePlan,
  fetchToolchain,
  resolveToolchains,
  type Ecosystem,
  type FetchedToolchain,
  type ToolchainRequest,
} from './toolchains.js';

/** Bumped when what a build makes from the same inputs changes, so no cached layer of the old builder is reused. */
export const ENVIRONMENT_BUILDER = 'abp-env/1';
// What an install image records beyond its layers (its labels); a new format builds new images rather than reusing
// cached ones that lack what graders now check.
// 3: no bytecode left by the version probes, so the same inputs build the same image again.
// 4: a JVM image carries Maven's repository, without the resolver's dated tracking files, and names it in MAVEN_OPTS.
const INSTALL_IMAGE_FORMAT = 4;
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const VENV = `${ENV_PREFIX}/venv`;
const MAVEN_REPOSITORY = `${ENV_PREFIX}/m2/repository`;
const MAX_LOG_BYTES = 4 * 1024 * 1024;
// Loopback by name: test suites connect to localhost. No resolver is ever bound in: the egress proxy resolves on the host.
const HOSTS = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n';
// What a Node test runner writes under node_modules while it runs; a fresh tmpfs in every run.
const NODE_SCRATCH = ['node_modules/.cache', 'node_modules/.vite'];

export interface EnvironmentRequest {
  readonly ecosystem: Ecosystem;
  readonly toolchain: ToolchainRequest;
  /** The recipe's install steps, each one command line run without a shell, in order. */
  readonly install: readonly string[];
  /** The recipe's runner: a pytest environment gets pytest if the install did not bring it. */
  readonly runner: string;
  /** The files the install reads (lockfiles, manifests) by path, with their contents' sha256: part of the cache key. */
  readonly dependencyFiles: Readonly<Record<string, string>>;
  /** An OCI base image already in the store (imported by digest) instead of a Debian base. */
  readonly base?: string;
}

export interface EnvironmentBuild {
  readonly digest: string;
  /** The image reused as it was, built before from the same inputs. */
  readonly cached: boolean;
  readonly toolchains: Readonly<Record<string, string>>;
  /** sha256 of the build log, stored as a blob beside the image. */
  readonly log: string;
  readonly durationMs: number;
}

interface BuildRecord {
  schema: 'abp-environment-build/1';
  digest: string;
  base: string;
  request: EnvironmentRequest;
  toolchains: Record<string, string>;
  log: string;
}

export interface BuildInput {
  readonly store: EnvironmentStore;
  readonly request: EnvironmentRequest;
  /** The repository at the commit, as a host folder; the build works on its own copy. */
  readonly checkout: string;
  readonly timeoutMs?: number;
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
}

const hex = (digest: string): string => digest.slice('sha256:'.length);

async function cached(store: EnvironmentStore, key: string): Promise<string | null> {
  const text = await readFile(join(store.root, 'keys', hex(key)), 'utf8').catch(() => null);
  if (text === null) return null;
  const digest = (JSON.parse(text) as { digest: string }).digest;
  return (await store.has(digest)) ? digest : null;
}

/**
 * The install image built before from these inputs. An index entry naming an image that records other dependency files
 * or another install (a damaged or tampered store) is a miss: the build runs again rather than hand a task another
 * repository's environment.
 */
async function cachedInstall(
  store: EnvironmentStore,
  key: string,
  request: EnvironmentRequest,
): Promise<string | null> {
  const digest = await cached(store, key);
  if (digest === null) return null;
  const labels = (await store.readImage(digest)).config.config.Labels;
  const fits =
    labels[LABELS.dependencyFiles] === canonicalJson(request.dependencyFiles) &&
    labels['org.abp.install'] === installRecord(request.install);
  return fits ? digest : null;
}

/** The install as the cache key and the image's label hold it: one step as its line (so images built before still
 * match), several as a JSON list. */
function installRecord(steps: readonly string[]): string {
  return steps.length === 1 ? (steps[0] ?? '') : JSON.stringify(steps);
}

/** Writes a small record whole or not at all: a cache entry read half-written would poison every later build. */
async function writeWhole(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${canonicalJson(value)}\n`);
  await rename(temporary, path);
}

function remember(store: EnvironmentStore, key: string, digest: string): Promise<void> {
  return writeWhole(join(store.root, 'keys', hex(key)), { digest });
}

/** The host's own PATH and registry settings, for the trusted programs that fetch toolchains and bases. */
function hostProgramEnv(hostEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(hostEnv).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function debianLayer(
  store: EnvironmentStore,
  suite: string,
  packages: readonly string[],
  env: Record<string, string>,
): Promise<Descriptor> {
  const key = contentDigest({
    builder: ENVIRONMENT_BUILDER,
    layer: 'debian',
    suite,
    packages: [...packages].sort(),
    arch: hostArch(),
  });
  const known = await cached(store, key);
  if (known !== null) return layerDescriptor(store, known);
  const root = await store.scratch('debian');
  try {
    await runProgram(
      [
        'mmdebstrap',
        '--variant=minbase',
        `--include=${[...packages].sort().join(',')}`,
        '--aptopt=Acquire::Retries "3"',
        suite,
        root,
      ],
      { cwd: store.root, env: { ...env, SOURCE_DATE_EPOCH: '0' }, timeoutMs: 1_200_000, label: `mmdebstrap ${suite}` },
    ).catch((error: unknown) => {
      throw new EnvironmentError(
        'base-build-failed',
        `the Debian ${suite} base could not be built: ${(error as Error).message}`,
      );
    });
    // Mount points every run needs, and nothing of the host that mmdebstrap copied in.
    for (const folder of ['work', ENV_PREFIX.slice(1)]) await mkdir(join(root, folder), { recursive: true });
    await rm(join(root, 'etc/resolv.conf'), { force: true });
    await writeFile(join(root, 'etc/resolv.conf'), '');
    await writeFile(join(root, 'etc/hosts'), HOSTS);
    await rm(join(root, 'var/cache/apt'), { recursive: true, force: true });
    await rm(join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
    await rm(join(root, 'var/log'), { recursive: true, force: true });
    await mkdir(join(root, 'var/log'));
    const layer = await store.putLayer(root);
    await remember(store, key, layer.digest);
    return layer;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function layerDescriptor(store: EnvironmentStore, digest: string): Promise<Descriptor> {
  const { size } = await lstat(store.blobPath(digest));
  return { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest, size };
}

async function toolchainLayer(
  store: EnvironmentStore,
  toolchain: FetchedToolchain,
  env: Record<string, string>,
): Promise<Descriptor> {
  const key = contentDigest({
    builder: ENVIRONMENT_BUILDER,
    layer: 'toolchain',
    name: toolchain.name,
    version: toolchain.version,
    arch: hostArch(),
  });
  const known = await cached(store, key);
  if (known !== null) return layerDescriptor(store, known);
  const root = await store.scratch('toolchain');
  await mkdir(root);
  try {
    await fetchToolchain(toolchain, root, env);
    const layer = await store.putLayer(root);
    await remember(store, key, layer.digest);
    return layer;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function imageConfig(env: Record<string, string>, labels: Record<string, string>, layers: Descriptor[]): ImageConfig {
  return {
    architecture: hostArch() === 'x64' ? 'amd64' : hostArch(),
    os: 'linux',
    config: {
      Env: Object.entries(env)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, value]) => `${name}=${value}`),
      WorkingDir: CHECKOUT,
      Labels: labels,
    },
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.digest) },
  };
}

/** Variables every environment of an ecosystem sets: where its toolchain and the install's output are. */
function ecosystemEnv(ecosystem: Ecosystem, toolchains: readonly FetchedToolchain[]): Record<string, string> {
  const path = [
    ...(ecosystem === 'python' ? [`${VENV}/bin`] : []),
    ...toolchains.flatMap((toolchain) => toolchain.path),
    SYSTEM_PATH,
  ].join(':');
  const env: Record<string, string> = { PATH: path, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC' };
  if (ecosystem === 'python') env['VIRTUAL_ENV'] = VENV;
  if (ecosystem === 'go')
    Object.assign(env, {
      GOMODCACHE: `${ENV_PREFIX}/go/mod`,
      GOTOOLCHAIN: 'local',
      GOFLAGS: '-modcacherw',
      CGO_ENABLED: '0',
    });
  if (ecosystem === 'rust') env['CARGO_HOME'] = `${ENV_PREFIX}/cargo`;
  // Maven's repository and the wrapper's distributions go in the layer, not in the install's passing home, so the
  // offline runs find every plugin and provider the install's test run fetched.
  if (ecosystem === 'jvm')
    Object.assign(env, {
      MAVEN_OPTS: `-Dmaven.repo.local=${MAVEN_REPOSITORY}`,
      MAVEN_USER_HOME: `${ENV_PREFIX}/m2`,
    });
  return env;
}

/** The base image (Debian with the toolchain, or an imported one) the install step runs in. */
async function baseImage(
  store: EnvironmentStore,
  request: EnvironmentRequest,
  hostEnv: Record<string, string>,
): Promise<{ image: Image; toolchains: FetchedToolchain[] }> {
  const toolchains = await resolveToolchains(request.ecosystem, request.toolchain, hostEnv);
  if (request.base !== undefined) {
    // An imported base lacks the folders every run binds over; a small layer adds them.
    const imported = await store.readImage(request.base);
    const root = await store.scratch('mount-points');
    try {
      for (const folder of ['work', 'run', 'etc', ENV_PREFIX.slice(1)])
        await mkdir(join(root, folder), { recursive: true });
      await writeFile(join(root, 'etc/resolv.conf'), '');
      await writeFile(join(root, 'etc/hosts'), HOSTS);
      const layers = [...imported.manifest.layers, await store.putLayer(root)];
      const env = {
        ...environmentVariables(imported.config, {}),
        ...ecosystemEnv(request.ecosystem, []),
      };
      const labels = { ...imported.config.config.Labels, 'org.abp.imported-base': request.base };
      return { image: await store.putImage(layers, imageConfig(env, labels, layers)), toolchains: [] };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  const plan = basePlan(request.ecosystem, request.toolchain);
  const layers = [await debianLayer(store, plan.suite, plan.packages, hostEnv)];
  for (const toolchain of toolchains) layers.push(await toolchainLayer(store, toolchain, hostEnv));
  const labels = { 'org.abp.debian-suite': plan.suite };
  return {
    image: await store.putImage(layers, imageConfig(ecosystemEnv(request.ecosystem, toolchains), labels, layers)),
    toolchains,
  };
}

/** Every path under `dir` but .git, relative, for telling what the install added to the checkout. */
async function listing(dir: string): Promise<Set<string>> {
  const paths = new Set<string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const relative = join(entry.parentPath, entry.name).slice(dir.length + 1);
    if (relative === '.git' || relative.startsWith('.git/')) continue;
    paths.add(relative);
  }
  return paths;
}

/** The topmost paths the install added to the checkout (node_modules, src/x.egg-info). */
function addedRoots(before: Set<string>, after: Set<string>): string[] {
  const added = [...after].filter((path) => !before.has(path)).sort();
  return added.filter((path) => !added.some((other) => path.startsWith(`${other}/`)));
}

export async function buildEnvironment(input: BuildInput): Promise<EnvironmentBuild> {
  const started = performance.now();
  const { store, request } = input;
  const hostEnv = hostProgramEnv(input.hostEnv ?? process.env);
  const { image: base, toolchains: fetched } = await baseImage(store, request, hostEnv);
  const key = contentDigest({
    builder: ENVIRONMENT_BUILDER,
    image: INSTALL_IMAGE_FORMAT,
    base: base.digest,
    ecosystem: request.ecosystem,
    install: installRecord(request.install),
    runner: request.runner,
    dependencyFiles: request.dependencyFiles,
  });
  const known = await cachedInstall(store, key, request);
  if (known !== null) {
    const record = JSON.parse(await readFile(join(store.root, 'builds', `${hex(known)}.json`), 'utf8')) as BuildRecord;
    return {
      digest: known,
      cached: true,
      toolchains: record.toolchains,
      log: record.log,
      durationMs: performance.now() - started,
    };
  }

  const rootfs = await store.rootfs(base.digest);
  const work = await store.scratch('install');
  const layerRoot = join(work, 'layer');
  const prefix = join(layerRoot, ENV_PREFIX);
  const checkout = join(work, 'repo');
  const home = join(work, 'home');
  await Promise.all([prefix, home].map((path) => mkdir(path, { recursive: true })));
  await cp(input.checkout, checkout, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (path) => !/\/\.git$/.test(path),
  });
  const log: Buffer[] = [];
  let logBytes = 0;
  const note = (text: string | Buffer): void => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
    if (logBytes + bytes.length > MAX_LOG_BYTES) return;
    log.push(bytes);
    logBytes += bytes.length;
  };
  const access = registryAccess(input.hostEnv ?? process.env, { java: request.ecosystem === 'jvm' });
  note(
    `# environment ${request.ecosystem}, base ${base.digest}\n# registry access carried in: ${access.carried.join(', ') || 'none'}\n# registries the install may reach: ${[...new Set(access.hosts.map((rule) => `${rule.host}:${rule.ports.join(',')}`))].join(', ')}\n`,
  );
  let egressDir: string | null = null;
  let egress: EgressProxy | null = null;
  try {
    // The install's one way out: a proxy that opens connections to the registries only (a short path: a socket's is
    // capped at 108 bytes).
    egressDir = await mkdtemp(join(tmpdir(), 'abp-egress-'));
    const proxy = await startEgressProxy({
      listen: { path: join(egressDir, 'proxy.sock') },
      allow: access.hosts,
      upstream: hostUpstream(input.hostEnv ?? process.env),
    });
    egress = proxy;
    const before = await listing(checkout);
    const imageEnv = environmentVariables(base.config, {});
    const ownEnv = ecosystemEnv(request.ecosystem, fetched);
    const run = async (
      command: string[],
      network: boolean,
      extra: Record<string, string> = {},
    ): Promise<CommandResult> => {
      note(`$ ${command.join(' ')}\n`);
      const environment: EnvironmentRun = {
        rootfs,
        config: base.config,
        checkout,
        mounts: [
          { source: prefix, target: ENV_PREFIX, writable: true },
          { source: home, target: '/work/home', writable: true },
          ...(network ? access.mounts : []),
        ],
        network: false,
        egress: network ? proxy.address : null,
      };
      const seen = proxy.attempts().length;
      const result = await runBounded({
        argv: command,
        cwd: CHECKOUT,
        env: {
          ...imageEnv,
          ...ownEnv,
          HOME: '/work/home',
          TMPDIR: '/tmp',
          CI: 'true',
          ...(network ? access.env : {}),
          ...extra,
        },
        timeoutMs: input.timeoutMs ?? 1_200_000,
        maxOutputBytes: MAX_LOG_BYTES,
        environment,
      });
      note(result.stdout);
      note(result.stderr);
      note(
        `# ${result.spawnError !== null ? `not started: ${result.spawnError.message}` : result.timedOut ? 'timed out' : `exit ${result.exitCode ?? result.signal}`}\n`,
      );
      const connections = summarizeAttempts(proxy.attempts().slice(seen));
      if (connections.length > 0) note(`# connections: ${connections.join(', ')}\n`);
      return result;
    };
    const must = async (command: string[], what: string): Promise<void> => {
      const result = await run(command, true);
      if (result.exitCode !== 0) throw buildFailed(what, Buffer.concat(log).toString('utf8'));
    };
    if (request.ecosystem === 'python') await must(['python3', '-m', 'venv', VENV], 'creating the virtualenv');
    for (const [index, step] of request.install.entries()) {
      const install = parseCommandLine(step);
      const installResult = await run(install.argv, true, install.env);
      if (installResult.exitCode !== 0) {
        const which = request.install.length === 1 ? 'recipe.install' : `recipe.install[${index}]`;
        throw buildFailed(`${which} ${JSON.stringify(step)}`, Buffer.concat(log).toString('utf8'));
      }
    }
    if (request.runner === 'pytest' && (await run(['python', '-c', 'import pytest'], false)).exitCode !== 0)
      await must(['python', '-m', 'pip', 'install', 'pytest'], 'installing pytest');

    // What the install left in the checkout travels in the layer and is bound back into every checkout.
    // Only dependency folders: a build output (dist/, build/) made at this commit would be stale at the next one.
    const added = addedRoots(before, await listing(checkout));
    const roots = added.filter((path) => /(^|\/)node_modules$|\.egg-info$/.test(path));
    const dropped = added.filter((path) => !roots.includes(path));
    if (dropped.length > 0) note(`# left out of the environment (not dependencies): ${dropped.join(', ')}\n`);
    for (const root of roots) {
      await mkdir(dirname(join(prefix, 'checkout', root)), { recursive: true });
      await rename(join(checkout, root), join(prefix, 'checkout', root));
    }
    const scratch = roots.includes('node_modules') ? NODE_SCRATCH : [];
    for (const path of scratch) await mkdir(join(prefix, 'checkout', path), { recursive: true });
    const toolchains = await probeVersions(request.ecosystem, run);
    // Bytecode records the time it was compiled: an environment must not depend on when it was built. Removed after
    // the probes, since `python -m pytest --version` compiles pytest where it is installed.
    await removeBytecode(prefix);
    if (request.ecosystem === 'jvm') await removeResolverTracking(join(layerRoot, MAVEN_REPOSITORY));
    note(`# toolchains: ${canonicalJson(toolchains)}\n`);
    const depsLayer = await store.putLayer(layerRoot);
    const layers = [...base.manifest.layers, depsLayer];
    const labels: Record<string, string> = {
      ...base.config.config.Labels,
      [LABELS.checkoutMounts]: JSON.stringify(roots),
      [LABELS.scratchMounts]: JSON.stringify(scratch),
      [LABELS.dependencyFiles]: canonicalJson(request.dependencyFiles),
      'org.abp.install': installRecord(request.install),
      'org.abp.base': base.digest,
    };
    for (const [name, version] of Object.entries(toolchains)) labels[`${LABELS.toolchainPrefix}${name}`] = version;
    const image = await store.putImage(layers, imageConfig({ ...imageEnv, ...ownEnv }, labels, layers));
    const logBlob = await store.putBytes(Buffer.concat(log));
    const record: BuildRecord = {
      schema: 'abp-environment-build/1',
      digest: image.digest,
      base: base.digest,
      request,
      toolchains,
      log: logBlob.digest,
    };
    await writeWhole(join(store.root, 'builds', `${hex(image.digest)}.json`), record);
    await remember(store, key, image.digest);
    return {
      digest: image.digest,
      cached: false,
      toolchains,
      log: logBlob.digest,
      durationMs: performance.now() - started,
    };
  } finally {
    await egress?.close();
    if (egressDir !== null) await rm(egressDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

function buildFailed(what: string, log: string): EnvironmentError {
  const tail = log.length > 3000 ? `…${log.slice(-3000)}` : log;
  return new EnvironmentError(
    'environment-build-failed',
    `${what} failed while building the environment; the end of the build log:\n${tail.trim()}`,
  );
}

/**
 * Maven's resolver writes, beside what it downloads, when it did (`resolver-status.properties`, `*.lastUpdated`, and a
 * dated `_remote.repositories` per folder): an environment must not depend on when it was built. Without them every
 * artifact counts as installed locally, which is what an offline run needs.
 */
async function removeResolverTracking(repository: string): Promise<void> {
  const entries = await readdir(repository, { recursive: true, withFileTypes: true }).catch(() => []);
  const tracking = entries
    .filter(
      (entry) =>
        entry.isFile() &&
        (entry.name === '_remote.repositories' ||
          entry.name === 'resolver-status.properties' ||
          entry.name.endsWith('.lastUpdated')),
    )
    .map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(tracking.map((path) => rm(path, { force: true })));
}

async function removeBytecode(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const caches = entries
    .filter((entry) => entry.isDirectory() && entry.name === '__pycache__')
    .map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(caches.map((path) => rm(path, { recursive: true, force: true })));
}

const PROBES: Readonly<Record<Ecosystem, ReadonlyArray<[string, string[]]>>> = {
  python: [
    ['python', ['python', '--version']],
    ['pytest', ['python', '-m', 'pytest', '--version']],
  ],
  node: [
    ['node', ['node', '--version']],
    ['npm', ['npm', '--version']],
    // Only where the repository runs bun: the probe fails, and records nothing, where it is not there.
    ['bun', ['bun', '--version']],
  ],
  go: [['go', ['go', 'version']]],
  rust: [
    ['rustc', ['rustc', '--version']],
    ['cargo', ['cargo', '--version']],
  ],
  jvm: [
    ['java', ['java', '-version']],
    ['mvn', ['mvn', '--version']],
  ],
  cpp: [
    ['cmake', ['cmake', '--version']],
    ['g++', ['g++', '--version']],
  ],
};

/** The versions the environment's own programs print, offline: what the image really carries, not what was asked for. */
async function probeVersions(
  ecosystem: Ecosystem,
  run: (command: string[], network: boolean) => Promise<CommandResult>,
): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const [name, command] of PROBES[ecosystem]) {
    const result = await run(command, false);
    if (result.exitCode !== 0) continue;
    const text = `${result.stdout.toString('utf8')}\n${result.stderr.toString('utf8')}`;
    const version = /(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1];
    if (version !== undefined) found[name] = version;
  }
  return found;
}

/** sha256 of a file's bytes, for EnvironmentRequest.dependencyFiles. */
export function fileDigest(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}
