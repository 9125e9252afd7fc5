// What environments cost, per ecosystem (issue 16), each figure against a baseline measured in the same run:
// - the build, cold (a fresh store: Debian base, toolchain, install) and cached (the same inputs again; target < 10 % of
//   cold), against a plain install of the same dependencies on the host;
// - the image's size, and the bytes a second task of the same repository adds to the store (its code changed, its
//   dependency files did not; target < 10 % of the first task's);
// - a freeze in the environment (three runs per state) against one plain suite run on the host;
// - a trial's start-up in the environment (bubblewrap over the unpacked image, the checkout bound in) against a plain
//   `git worktree add` (target within 2x).
//   node bin/run-ts.js bench/environments.ts [python,node,go]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  buildEnvironment,
  CHECKOUT,
  EnvironmentStore,
  fileDigest,
  offlineVariables,
  type EnvironmentRequest,
} from '@abp/grader/environments';
import { runBounded } from '@abp/grader/execution';
import { freezeFix } from '@abp/pipeline/freeze/index';
import type { RunnerRecipe } from '@abp/pipeline/registry/criteria/schema';

interface Ecosystem {
  files: Record<string, string>;
  /** The fix: changed code and a new test. */
  fix: Record<string, string>;
  /** A later task's base: code changed, dependency files not. */
  later: Record<string, string>;
  dependencyFiles: string[];
  recipe: RunnerRecipe;
  request: Omit<EnvironmentRequest, 'dependencyFiles'>;
  prepare?: (dir: string) => void;
  plainInstall: (dir: string, scratch: string) => void;
  plainTest: (dir: string, scratch: string) => void;
}

const sh = (argv: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void => {
  execFileSync(argv[0] ?? '', argv.slice(1), { cwd, env, stdio: 'ignore' });
};

const ECOSYSTEMS: Record<string, Ecosystem> = {
  python: {
    files: {
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "slugs"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = ["six==1.16.0", "iniconfig==2.0.0"]\n',
      'src/slugs/__init__.py': 'import six\n\n\ndef slug(text):\n    return six.ensure_str(text).lower()\n',
      'tests/test_slug.py': 'from slugs import slug\n\n\ndef test_lower():\n    assert slug("AB") == "ab"\n',
    },
    fix: {
      'src/slugs/__init__.py':
        'import six\n\n\ndef slug(text):\n    return "-".join(six.ensure_str(text).lower().split())\n',
      'tests/test_slug.py':
        'from slugs import slug\n\n\ndef test_lower():\n    assert slug("AB") == "ab"\n\n\ndef test_spaces():\n    assert slug("a b") == "a-b"\n',
    },
    later: { 'src/slugs/extra.py': 'VALUE = 2\n' },
    dependencyFiles: ['pyproject.toml'],
    recipe: {
      runner: 'pytest',
      ecosystem: 'python',
      install: 'pip install -e .',
      test: 'python -m pytest -p no:cacheprovider --junitxml=test-report.xml',
      report: 'junit-xml',
    },
    request: { ecosystem: 'python', toolchain: {}, install: ['pip install -e .'], runner: 'pytest' },
    plainInstall: (dir, scratch) => {
      sh(['python3', '-m', 'venv', join(scratch, 'venv')], dir);
      sh([join(scratch, 'venv/bin/pip'), 'install', '-q', '-e', '.', 'pytest'], dir);
    },
    plainTest: (dir, scratch) =>
      sh([join(scratch, 'venv/bin/python'), '-m', 'pytest', '-q', '-p', 'no:cacheprovider'], dir),
  },
  node: {
    files: {
      '.nvmrc': '22\n',
      'package.json': JSON.stringify({
        name: 'bench-js',
        version: '1.0.0',
        private: true,
        type: 'module',
        devDependencies: { vitest: '3.2.4', 'is-number': '7.0.0' },
      }),
      'index.js': 'import isNumber from "is-number";\nexport const double = (x) => (isNumber(x) ? x * 2 : NaN);\n',
      'test/double.test.js':
        'import { expect, test } from "vitest";\nimport { double } from "../index.js";\ntest("doubles", () => expect(double(2)).toBe(4));\n',
    },
    fix: {
      'index.js':
        'import isNumber from "is-number";\nexport const double = (x) => (isNumber(x) ? x * 2 : NaN);\nexport const half = (x) => x / 2;\n',
      'test/half.test.js':
        'import { expect, test } from "vitest";\nimport { half } from "../index.js";\ntest("halves", () => expect(half(4)).toBe(2));\n',
    },
    later: { 'extra.js': 'export const value = 2;\n' },
    dependencyFiles: ['package.json', 'package-lock.json', '.nvmrc'],
    recipe: {
      runner: 'vitest',
      ecosystem: 'node',
      install: 'npm ci',
      test: 'npx vitest run',
      report: 'junit-xml',
    },
    request: { ecosystem: 'node', toolchain: { node: '22' }, install: ['npm ci'], runner: 'vitest' },
    prepare: (dir) => sh(['npm', 'install', '--package-lock-only', '--no-audit', '--no-fund'], dir),
    plainInstall: (dir) => sh(['npm', 'ci', '--no-audit', '--no-fund'], dir),
    plainTest: (dir) => sh(['npx', 'vitest', 'run'], dir),
  },
  go: {
    files: {
      'go.mod': 'module example.com/benchgo\n\ngo 1.24.5\n\nrequire github.com/google/uuid v1.6.0\n',
      'go.sum':
        'github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\ngithub.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n',
      'lib.go':
        'package benchgo\n\nimport "github.com/google/uuid"\n\nfunc Valid(s string) bool { _, err := uuid.Parse(s); return err == nil }\n',
      'lib_test.go':
        'package benchgo\n\nimport "testing"\n\nfunc TestValid(t *testing.T) {\n\tif !Valid("6ba7b810-9dad-11d1-80b4-00c04fd430c8") {\n\t\tt.Fatal("want valid")\n\t}\n}\n',
    },
    fix: {
      'half.go': 'package benchgo\n\nfunc Half(x int) int { return x / 2 }\n',
      'half_test.go':
        'package benchgo\n\nimport "testing"\n\nfunc TestHalf(t *testing.T) {\n\tif Half(4) != 2 {\n\t\tt.Fatal("want 2")\n\t}\n}\n',
    },
    later: { 'extra.go': 'package benchgo\n\nconst Extra = 2\n' },
    dependencyFiles: ['go.mod', 'go.sum'],
    recipe: {
      runner: 'go-test',
      ecosystem: 'go',
      install: 'go mod download',
      test: 'go test -json ./...',
      report: 'go-test-json',
    },
    request: { ecosystem: 'go', toolchain: { go: '1.24.5' }, install: ['go mod download'], runner: 'go-test' },
    plainInstall: (dir, scratch) =>
      sh(['go', 'mod', 'download'], dir, { ...process.env, GOMODCACHE: join(scratch, 'mod'), GOFLAGS: '-modcacherw' }),
    plainTest: (dir, scratch) =>
      sh(['go', 'test', '-count=1', './...'], dir, {
        ...process.env,
        GOMODCACHE: join(scratch, 'mod'),
        GOFLAGS: '-modcacherw',
        GOCACHE: join(scratch, 'cache'),
      }),
  },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const timed = async <T>(work: () => Promise<T> | T): Promise<[T, number]> => {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
};
function blobBytes(store: EnvironmentStore): number {
  const dir = join(store.root, 'blobs', 'sha256');
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}
function write(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}
const identity = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@abp.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@abp.invalid',
};
const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, env: { ...process.env, ...identity }, encoding: 'utf8' }).trim();

const chosen = (process.argv[2] ?? 'python,node,go').split(',');
const root = mkdtempSync(join(tmpdir(), 'abp-bench-env-'));
const rows: string[] = [];
try {
  for (const name of chosen) {
    const eco = ECOSYSTEMS[name];
    if (eco === undefined)
      throw new Error(`unknown ecosystem ${name}; choose from ${Object.keys(ECOSYSTEMS).join(', ')}`);
    const work = join(root, name);
    const repo = join(work, 'repo');
    mkdirSync(repo, { recursive: true });
    write(repo, eco.files);
    eco.prepare?.(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const base = git(repo, 'rev-parse', 'HEAD');
    const store = new EnvironmentStore(join(work, 'store'));
    const request = (dir: string): EnvironmentRequest => ({
      ...eco.request,
      dependencyFiles: Object.fromEntries(
        eco.dependencyFiles.map((path) => [path, fileDigest(execFileSync('cat', [join(dir, path)]))]),
      ),
    });

    const [cold, coldMs] = await timed(() => buildEnvironment({ store, checkout: repo, request: request(repo) }));
    const [, cachedMs] = await timed(() => buildEnvironment({ store, checkout: repo, request: request(repo) }));
    const image = await store.readImage(cold.digest);
    const imageBytes = image.manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
    const before = blobBytes(store);
    const later = join(work, 'later');
    cpSync(repo, later, { recursive: true });
    write(later, eco.later);
    const second = await buildEnvironment({ store, checkout: later, request: request(later) });
    const addedBytes = blobBytes(store) - before;

    const plain = join(work, 'plain');
    const scratch = join(work, 'plain-scratch');
    cpSync(repo, plain, { recursive: true });
    mkdirSync(scratch);
    const [, plainInstallMs] = await timed(() => eco.plainInstall(plain, scratch));
    const plainRuns: number[] = [];
    for (let round = 0; round < 3; round++) plainRuns.push((await timed(() => eco.plainTest(plain, scratch)))[1]);

    write(repo, eco.fix);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fix');
    const fix = git(repo, 'rev-parse', 'HEAD');
    const [frozen, freezeMs] = await timed(() =>
      freezeFix(
        {
          taskId: `gh-bench-${name}-1`,
          repo: `bench/${name}`,
          gitDir: repo,
          baseCommit: base,
          fix: { kind: 'commit', commit: fix },
          recipe: eco.recipe,
        },
        { workDir: join(work, 'freeze'), environments: store },
      ),
    );
    if (frozen.status !== 'frozen')
      throw new Error(`${name}: the freeze was rejected (${frozen.reason}): ${frozen.detail}`);

    // Start-up: a fresh checkout bound into the environment, running `true`, against `git worktree add`.
    const rootfs = await store.rootfs(cold.digest);
    const startups: number[] = [];
    const worktrees: number[] = [];
    for (let round = 0; round < 15; round++) {
      const tree = join(work, `wt-${round}`);
      worktrees.push((await timed(() => git(repo, 'worktree', 'add', '-q', '--detach', tree, base)))[1]);
      const home = join(work, `home-${round}`);
      mkdirSync(home);
      startups.push(
        (
          await timed(() =>
            runBounded({
              argv: ['true'],
              cwd: CHECKOUT,
              env: offlineVariables(image.config, {
                home: '/work/home',
                goCache: '/work/home/go',
                cargoTarget: '/work/home/target',
              }),
              timeoutMs: 60_000,
              maxOutputBytes: 1024,
              environment: {
                rootfs,
                config: image.config,
                checkout: tree,
                mounts: [{ source: home, target: '/work/home', writable: true }],
                network: false,
              },
            }),
          )
        )[1],
      );
    }
    const worktreeMs = median(worktrees);
    const startupMs = median(startups);
    const plainRunMs = median(plainRuns);
    rows.push(
      [
        `${name} (${Object.entries(cold.toolchains)
          .map(([tool, version]) => `${tool} ${version}`)
          .join(', ')})`,
        `  build: cold ${seconds(coldMs)}, cached ${seconds(cachedMs)} (${((100 * cachedMs) / coldMs).toFixed(2)}% of cold; target < 10%); plain host install ${seconds(plainInstallMs)} (cold build ${(coldMs / plainInstallMs).toFixed(1)}x of it)`,
        `  image ${mib(imageBytes)} in ${image.manifest.layers.length} layers; a second task of the repository ${second.digest === cold.digest ? 'reuses it' : 'gets its own'} and adds ${mib(addedBytes)} (${((100 * addedBytes) / imageBytes).toFixed(2)}% of the first; target < 10%)`,
        `  freeze in the environment (3 runs per state, environment cached) ${seconds(freezeMs)}; one plain suite run on the host ${seconds(plainRunMs)} (${(freezeMs / plainRunMs).toFixed(1)}x)`,
        `  trial start-up in the environment ${startupMs.toFixed(1)} ms median of 15; git worktree add ${worktreeMs.toFixed(1)} ms (${(startupMs / worktreeMs).toFixed(2)}x; target within 2x)`,
      ].join('\n'),
    );
    console.log(rows.at(-1));
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
