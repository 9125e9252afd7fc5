// Shared by the freeze suites: the GitHub simulator's live repositories built into a temp folder, a
// recipe per runner (the simulator CI's own commands, without shell syntax), the simulator's test
// ids in the report ids the freeze uses, and an oracle for "the rest of the suite": every test the
// simulator's own runner sees at a state, read with its own parser, independent of the freeze's.
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { FreezeInput } from '../../src/freeze/index.js';
import type { RunnerRecipe } from '../../src/registry/criteria/schema.js';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { buildLiveRepos, type BuiltRepo, type KnownFix } from '@abp/github-sim/world/live/build';
import { installDependencies, runnerEnv, runTests, VENV, type LiveRunnerId } from '@abp/github-sim/world/live/runners';

const execFileAsync = promisify(execFile);

export async function buildRepos(root: string): Promise<BuiltRepo[]> {
  return (await buildLiveRepos({ seed32: 7, now: Date.UTC(2026, 5, 1) / 1000, dir: join(root, 'world') })).repos;
}

export function repoNamed(repos: readonly BuiltRepo[], name: string): BuiltRepo {
  const repo = repos.find((candidate) => candidate.repo.name === name);
  if (repo === undefined) throw new Error(`the live world has no repository ${name}`);
  return repo;
}

export function knownFix(repo: BuiltRepo, issue: number): KnownFix {
  const fix = repo.fixes.find((candidate) => candidate.issue === issue);
  if (fix === undefined) throw new Error(`${repo.repo.name} has no known fix for #${issue}`);
  return fix;
}

/** The planted flaky test pinned to its passing value (a registry recipe may set variables before the command). */
export const RECIPES: Readonly<Record<LiveRunnerId, RunnerRecipe>> = {
  'node-test': {
    runner: 'node-test',
    ecosystem: 'node',
    install: 'node --version',
    test: 'node --test --test-reporter=junit --test-reporter-destination=test-report.xml',
    report: 'junit-xml',
  },
  vitest: {
    runner: 'vitest',
    ecosystem: 'node',
    install: 'npm ci',
    test: 'npx vitest run',
    report: 'jest-json',
  },
  pytest: {
    runner: 'pytest',
    ecosystem: 'python',
    install: 'python3 -m pytest --version',
    test: 'RANGESET_TEST_SEED=1 python3 -m pytest -q -p no:cacheprovider --junitxml=test-report.xml',
    report: 'junit-xml',
  },
  'go-test': {
    runner: 'go-test',
    ecosystem: 'go',
    install: 'go mod download',
    test: 'go test -json -count=1 ./...',
    report: 'go-test-json',
  },
  'cargo-test': {
    runner: 'cargo-test',
    ecosystem: 'rust',
    install: 'cargo fetch',
    test: 'cargo test --offline --no-fail-fast',
    report: 'cargo-test-text',
  },
};

export function freezeInput(
  repo: BuiltRepo,
  issue: number,
  baseCommit: string,
  fix: FreezeInput['fix'],
  gitDir = repo.upstreamPath,
): FreezeInput {
  const fullName = `${repo.repo.owner}/${repo.repo.name}`;
  return {
    taskId: githubTaskId(fullName, issue),
    repo: fullName,
    gitDir,
    baseCommit,
    fix,
    recipe: RECIPES[repo.runner],
  };
}

/**
 * A simulator test id as abp names the same test. The simulator's ids are its runners' own (pytest node ids, go
 * `<package>::<Test>`, cargo `<target>::<name>`, vitest's `file > titles`), as abp's are; Node 20's junit reporter
 * names no file, so a node:test id is its title path alone.
 */
export function reportId(runner: LiveRunnerId, id: string): string {
  return runner === 'node-test' ? id.split(' > ').join(' › ') : id;
}

/**
 * The tests the runner itself lists in `dir` (a checkout whose dependencies are installed), in its own words:
 * `pytest --collect-only -q`, `go test -list`, `cargo test -- --list` with the targets cargo names on stderr, and
 * `vitest list`. node:test has no listing command: null.
 */
export async function runnerListedIds(runner: LiveRunnerId, dir: string): Promise<string[] | null> {
  // The simulator's runner environment, with a repository's .venv first on PATH where its CI installed into one.
  const env = runnerEnv({ RANGESET_TEST_SEED: '1' });
  const venv = join(dir, VENV, 'bin');
  if (
    await access(venv).then(
      () => true,
      () => false,
    )
  )
    env['PATH'] = `${venv}:${env['PATH'] ?? ''}`;
  const run = async (argv: string[]) => {
    const [file = '', ...args] = argv;
    return execFileAsync(file, args, { cwd: dir, env, maxBuffer: 64 << 20 });
  };
  switch (runner) {
    case 'pytest': {
      const { stdout } = await run(['python3', '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider']);
      return stdout.split('\n').filter((line) => line.includes('::'));
    }
    case 'go-test': {
      // Each package's names, then "ok  <package>  <time>".
      const { stdout } = await run(['go', 'test', '-count=1', '-list', '.', './...']);
      const ids: string[] = [];
      let names: string[] = [];
      for (const line of stdout.split('\n')) {
        const done = /^ok\s+(\S+)/.exec(line);
        if (done !== null) {
          ids.push(...names.map((name) => `${done[1] ?? ''}::${name}`));
          names = [];
        } else if (/^(Test|Example|Fuzz|Benchmark)\w*$/.test(line)) names.push(line);
      }
      return ids;
    }
    case 'cargo-test': {
      const { stdout, stderr } = await run(['cargo', 'test', '--offline', '--', '--list']);
      const targets: string[] = [];
      for (const line of stderr.split('\n')) {
        const header = /^\s*(?:Running (?:unittests )?(\S+) \(|Doc-tests (\S+))/.exec(line);
        if (header !== null) targets.push(header[1] ?? `doc-tests/${header[2] ?? ''}`);
      }
      // Each binary lists "<name>: test" lines and closes with "N tests, M benchmarks".
      const ids: string[] = [];
      let binary = 0;
      for (const line of stdout.split('\n')) {
        const test = /^(.+): test$/.exec(line);
        if (test !== null) ids.push(`${targets[binary] ?? '?'}::${test[1] ?? ''}`);
        else if (/^\d+ tests?, \d+ benchmarks?$/.test(line)) binary += 1;
      }
      return ids;
    }
    case 'vitest': {
      const { stdout } = await run(['npx', 'vitest', 'list']);
      return stdout.split('\n').filter((line) => line.includes(' > '));
    }
    case 'node-test':
      return null;
  }
}

export function reportIds(runner: LiveRunnerId, ids: readonly string[]): string[] {
  return ids.map((id) => reportId(runner, id)).sort();
}

export async function git(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      TZ: 'UTC',
      ...env,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** A non-bare clone of the repository at `commit`, with `patch` applied (not committed). */
export async function cloneAt(repo: BuiltRepo, commit: string, dir: string, patch?: string): Promise<void> {
  await git(['clone', '--quiet', '--no-checkout', repo.upstreamPath, dir], dirname(repo.upstreamPath));
  await git(['checkout', '--quiet', '--detach', commit], dir);
  if (patch !== undefined) await applyPatch(dir, patch);
}

async function applyPatch(dir: string, patch: string): Promise<void> {
  const child = execFile('git', ['apply', '--whitespace=nowarn', '-'], { cwd: dir });
  const done = new Promise<void>((resolve, reject) =>
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git apply exited ${String(code)} in ${dir}`)),
    ),
  );
  child.stdin?.end(patch);
  await done;
}

/** Commits everything in the clone as the fix; returns the commit id. */
export async function commitAll(
  dir: string,
  files: Readonly<Record<string, string>>,
  message: string,
): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(['add', '--all'], dir);
  const identity = {
    GIT_AUTHOR_NAME: 'ABP Test',
    GIT_AUTHOR_EMAIL: 'test@abp.invalid',
    GIT_COMMITTER_NAME: 'ABP Test',
    GIT_COMMITTER_EMAIL: 'test@abp.invalid',
  };
  await git(['commit', '--quiet', '-m', message], dir, identity);
  return (await git(['rev-parse', 'HEAD'], dir)).trim();
}

/** Every test id the simulator's own runner sees at `commit` + `patch`, in report ids. */
export async function suiteIdsAt(repo: BuiltRepo, commit: string, patch: string, dir: string): Promise<string[]> {
  await cloneAt(repo, commit, dir, patch);
  // A repository with third-party packages gets them as its CI does, on the host with the network.
  if (repo.install !== null) await installDependencies(repo.install, dir);
  const suite = await runTests(repo.runner, dir, { env: { RANGESET_TEST_SEED: '1' } });
  if (suite.results.length === 0)
    throw new Error(`the oracle run of ${repo.repo.name} found no tests:\n${suite.output}`);
  return reportIds(
    repo.runner,
    suite.results.map((result) => result.id),
  );
}
