// Freezing textkit (node --test, JUnit XML) from the simulator's live world: a known fix as a patch, a
// merged pull request as its merge commit, a fix committed in a non-bare clone with a probe of the run
// environment, and the rejections and errors that stop a freeze.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeFix, FreezeError, type FreezeOutcome, type FrozenFix } from '../../src/freeze/index.js';
import { parseCommandLine } from '@abp/grader/verification';
import type { BuiltRepo } from '@abp/github-sim/world/live/build';
import {
  buildRepos,
  cloneAt,
  commitAll,
  freezeInput,
  knownFix,
  RECIPES,
  repoNamed,
  reportIds,
  suiteIdsAt,
} from './live-repos.js';

let root: string;
let textkit: BuiltRepo;
let server: Server;
let port: number;
let clones = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-node-'));
  textkit = repoNamed(await buildRepos(root), 'textkit');
  // The environment probe must not reach this server: runs have no network.
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

const workDir = () => join(root, 'work');
const nextClone = () => join(root, `clone-${clones++}`);

function frozen(outcome: FreezeOutcome): FrozenFix {
  if (outcome.status !== 'frozen') throw new Error(`expected a frozen fix, got ${outcome.reason}: ${outcome.detail}`);
  return outcome;
}

describe('freezing textkit with node --test', () => {
  it('a known fix freezes to the spec FAIL_TO_PASS and the rest of the suite as PASS_TO_PASS', async () => {
    const fix = knownFix(textkit, 3);
    const outcome = frozen(
      await freezeFix(freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }), {
        workDir: workDir(),
      }),
    );

    const failToPass = reportIds('node-test', fix.failToPass);
    expect(outcome.failToPass).toEqual(failToPass);
    const suite = await suiteIdsAt(textkit, fix.baseOid, fix.patch, nextClone());
    expect(outcome.passToPass).toEqual(suite.filter((id) => !failToPass.includes(id)));
    expect(outcome.flaky).toEqual([]);

    expect(outcome.split.testPatch).toContain('diff --git a/test/slugify.test.js b/test/slugify.test.js');
    expect(outcome.split.testPatch).not.toContain('src/slugify.js');
    expect(outcome.split.codePatch).toContain('diff --git a/src/slugify.js b/src/slugify.js');
    expect(outcome.split.recorded).toEqual([]);
    expect(outcome.heldOutFiles.map((file) => file.path)).toEqual(['test/slugify.test.js']);
    expect(outcome.heldOutFiles[0]?.content.toString('utf8')).toContain("test('transliterates accented letters'");
    expect(outcome.golden.patch).toBe(fix.patch);
    expect(outcome.golden.filesTouched).toBe(1);
    expect(outcome.golden.diffBytesNormalized).toBeGreaterThan(0);

    // The FAIL_TO_PASS command runs only the file that holds the new test; PASS_TO_PASS runs everything.
    expect(outcome.commands).toEqual({
      failToPass: [`${RECIPES['node-test'].test} test/slugify.test.js`],
      passToPass: [RECIPES['node-test'].test],
    });
    expect(parseCommandLine(outcome.commands.failToPass[0] ?? '').argv.at(-1)).toBe('test/slugify.test.js');

    expect(outcome.runs.map((run) => [run.state, run.index])).toEqual([
      ['before', 0],
      ['before', 1],
      ['before', 2],
      ['after', 0],
      ['after', 1],
      ['after', 2],
    ]);
    for (const run of outcome.runs) {
      expect(run.problem).toBeNull();
      expect(run.counts.total).toBe(suite.length);
      expect(run.counts.fail).toBe(run.state === 'before' ? failToPass.length : 0);
      expect(run.exitCode).toBe(run.state === 'before' ? 1 : 0);
    }
  });

  it('a merged pull request freezes from its merge commit against the base it merged onto', async () => {
    const pull = textkit.pulls.find((candidate) => candidate.number === 2);
    if (pull?.mergeCommitOid == null) throw new Error('textkit has no merged pull request #2');
    const outcome = frozen(
      await freezeFix(freezeInput(textkit, 1, pull.baseRefOid, { kind: 'commit', commit: pull.mergeCommitOid }), {
        workDir: workDir(),
      }),
    );
    expect(outcome.failToPass).toEqual(['slugify › trims separators at both ends']);
    expect(outcome.passToPass).toContain('slugify › joins lower-cased words with dashes');
    expect(outcome.golden.patch).toMatch(/^diff --git a\/src\/slugify\.js b\/src\/slugify\.js$/m);
  });

  it('runs in a private home with a pinned environment and no network, from a fix committed in a non-bare clone', async () => {
    const fix = knownFix(textkit, 5);
    const clone = nextClone();
    await cloneAt(textkit, fix.baseOid, clone, fix.patch);
    const probe = `import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

describe('environment', () => {
  test('is pinned, offline and private', async () => {
    assert.equal(process.env.TZ, 'UTC');
    assert.equal(process.env.LC_ALL, 'C.UTF-8');
    assert.equal(process.env.PYTHONHASHSEED, '0');
    assert.equal(process.env.GOFLAGS, '-count=1');
    assert.equal(process.env.GOPROXY, 'off');
    assert.equal(process.env.CARGO_NET_OFFLINE, 'true');
    assert.equal(process.env.NODE_OPTIONS, undefined);
    assert.notEqual(homedir(), ${JSON.stringify(process.env['HOME'] ?? '/root')});
    writeFileSync(join(homedir(), 'probe'), 'a private home is writable');
    const reached = await new Promise((resolve) => {
      const socket = connect(${port}, '127.0.0.1', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    assert.equal(reached, false);
  });
});
`;
    // A lockfile rides along: recorded with the fix, left out of its size.
    const lockfile = '{\n  "name": "textkit",\n  "lockfileVersion": 3,\n  "packages": {}\n}\n';
    const commit = await commitAll(
      clone,
      { 'test/environment.test.js': probe, 'package-lock.json': lockfile },
      'truncate: count code points',
    );
    const outcome = frozen(
      await freezeFix(freezeInput(textkit, 5, fix.baseOid, { kind: 'commit', commit }, clone), {
        workDir: workDir(),
        sandbox: true,
      }),
    );
    expect(outcome.failToPass).toEqual(reportIds('node-test', fix.failToPass));
    expect(outcome.passToPass).toContain('environment › is pinned, offline and private');
    expect(outcome.heldOutFiles.map((file) => file.path)).toEqual([
      'test/environment.test.js',
      'test/truncate.test.js',
    ]);
    expect(outcome.split.recorded).toEqual([{ path: 'package-lock.json', kind: 'lockfile' }]);
    expect(outcome.split.codePatch).toContain('diff --git a/package-lock.json b/package-lock.json');
    expect(outcome.golden.filesTouched).toBe(1);
  });

  it('rejects a fix whose new tests already pass before it', async () => {
    const clone = nextClone();
    await cloneAt(textkit, textkit.repo.headOid, clone);
    const test = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slugify.js';

test('keeps digits', () => {
  assert.equal(slugify('Top 10 lists'), 'top-10-lists');
});
`;
    const commit = await commitAll(
      clone,
      {
        'test/digits.test.js': test,
        'src/index.js':
          "export { slugify } from './slugify.js';\nexport { truncate } from './truncate.js';\n// Both helpers are pure functions.\n",
      },
      'Document purity',
    );
    const outcome = await freezeFix(freezeInput(textkit, 4, textkit.repo.headOid, { kind: 'commit', commit }, clone), {
      workDir: workDir(),
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'tests-already-pass', regressions: [] });
    expect(outcome.runs).toHaveLength(6);
  });

  it('rejects a fix that does not apply on the base, before running anything', async () => {
    const fix = knownFix(textkit, 3);
    const pull = textkit.pulls[0];
    if (pull === undefined) throw new Error('textkit has no pull request');
    const outcome = await freezeFix(freezeInput(textkit, 3, pull.baseRefOid, { kind: 'patch', patch: fix.patch }), {
      workDir: workDir(),
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'fix-does-not-apply', runs: [] });
  });

  it('rejects a freeze whose install fails as install-failed, with the line that names the cause', async () => {
    const fix = knownFix(textkit, 3);
    const input = {
      ...freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }),
      recipe: {
        ...RECIPES['node-test'],
        install: `node -e "for (let i = 0; i < 400; i += 1) console.error('retrying the registry ' + i); console.error('ERROR: no version of left-pad matches 9.9.9'); for (let i = 0; i < 400; i += 1) console.error('cleaning up ' + i); process.exitCode = 3"`,
      },
    };
    const outcome = await freezeFix(input, { workDir: workDir() });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'install-failed', runs: [] });
    if (outcome.status === 'rejected')
      expect(outcome.detail).toMatch(/\(exit 3\): ERROR: no version of left-pad matches 9\.9\.9\n/);
  });

  it('runs install steps one by one, without a shell, and names the step that failed', async () => {
    const fix = knownFix(textkit, 3);
    const input = {
      ...freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }),
      recipe: {
        ...RECIPES['node-test'],
        // The first step leaves a file the second reads: they ran in order, in the same checkout.
        install: [
          `node -e "require('fs').writeFileSync('step-1', 'ran')"`,
          `node -e "const s = require('fs').readFileSync('step-1', 'utf8'); console.error('ERROR: step 2 saw ' + s); process.exitCode = 4"`,
        ],
      },
    };
    const outcome = await freezeFix(input, { workDir: workDir() });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'install-failed', runs: [] });
    if (outcome.status === 'rejected')
      expect(outcome.detail).toMatch(/^recipe\.install\[1\] .*\(exit 4\): ERROR: step 2 saw ran\n/);
  });

  it('refuses a recipe whose runner leaves no per-test report before anything runs (unsupported-runner)', async () => {
    const fix = knownFix(textkit, 3);
    const input = {
      ...freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }),
      recipe: { ...RECIPES['node-test'], test: 'node test/run-all.js' },
    };
    await expect(freezeFix(input, { workDir: workDir() })).rejects.toMatchObject({ code: 'unsupported-runner' });
  });

  it('bounds every run in time: a suite that outlasts the timeout did not run', async () => {
    const clone = nextClone();
    const fix = knownFix(textkit, 3);
    await cloneAt(textkit, fix.baseOid, clone, fix.patch);
    const slow =
      "import { test } from 'node:test';\n\ntest('takes its time', () => new Promise((resolve) => setTimeout(resolve, 60_000)));\n";
    const commit = await commitAll(clone, { 'test/slow.test.js': slow }, 'slugify: transliterate accented letters');
    const outcome = await freezeFix(freezeInput(textkit, 3, fix.baseOid, { kind: 'commit', commit }, clone), {
      workDir: workDir(),
      runTimeoutSeconds: 1,
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'suite-did-not-run' });
    expect(outcome.runs.length).toBeGreaterThan(0);
    for (const run of outcome.runs) expect([run.index, run.timedOut, run.exitCode]).toEqual([0, true, null]);
  });

  it('stops with an error when the repository or a commit is not there', async () => {
    const fix = knownFix(textkit, 3);
    const patch = { kind: 'patch', patch: fix.patch } as const;
    const errorOf = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => (error instanceof FreezeError ? error.code : error),
      );
    await expect(
      errorOf(freezeFix(freezeInput(textkit, 3, fix.baseOid, patch, join(root, 'nowhere')), { workDir: workDir() })),
    ).resolves.toBe('not-a-repository');
    await expect(
      errorOf(freezeFix(freezeInput(textkit, 3, 'f'.repeat(40), patch), { workDir: workDir() })),
    ).resolves.toBe('missing-commit');
    await expect(
      errorOf(
        freezeFix(freezeInput(textkit, 3, fix.baseOid, { kind: 'commit', commit: 'e'.repeat(40) }), {
          workDir: workDir(),
        }),
      ),
    ).resolves.toBe('missing-commit');
    await expect(
      errorOf(
        freezeFix(freezeInput(textkit, 3, fix.baseOid, { kind: 'commit', commit: fix.baseOid }), {
          workDir: workDir(),
        }),
      ),
    ).resolves.toBe('empty-fix');
  });
});
