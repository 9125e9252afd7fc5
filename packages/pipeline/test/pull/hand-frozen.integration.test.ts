// One path from an operator's `abp freeze` to a consumer's `abp run`, for a task no workflow made, through the real
// commands only: `abp init` makes the signing key, `abp freeze` (refused without the draw's facts, and at once for an
// issue older than every model cutoff) freezes the simulator's textkit fix and publishes it, `abp serve
// --published-only` serves it without Temporal, `abp pull` fetches and verifies it, `abp unpack` makes the same folder
// from the bundle file (refusing a tampered one with the code `abp pull` gives), and `abp run` grades both folders: the
// reference engine resolves the task, the no-op engine does not. Frozen again with the solving engine's golden trace
// (`--golden-trace`, refused early with its own code and line when it is not a clean abp-trace/v1 file of the task), the
// manifest names it, `abp serve` serves it byte for byte where the manifest points, and `abp pull` saves it beside the
// task and refuses it when its bytes are not the ones signed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineProgram, engineProgramPaths } from '@abp/grader/engines';
import type { PulledTask, UnpackedTask } from '@abp/grader/pull';
import type { PublishedTask } from '../../src/freeze/index.js';
import type { KnownFix, BuiltRepo } from '@abp/github-sim/world/live/build';
import { ADAPTER_DEFAULTS } from '../support/bundled-engines.js';
import { runAbp, type CliResult } from '../support/cli.js';
import { buildRepos, knownFix, RECIPES, repoNamed } from '../freeze/live-repos.js';
import { goldenTraceText } from '../support/golden-trace.js';

const abpBin = fileURLToPath(new URL('../../bin/abp.js', import.meta.url));

let root: string;
/** The operator's data directory, and a consumer's, which shares nothing with it but the trust root file. */
let operator: string;
let consumer: string;
let textkit: BuiltRepo;
let fix: KnownFix;
let frozen: PublishedTask & { published: string };
/** The `abp serve` processes started, each stopped after the file. */
const serves: ChildProcess[] = [];
let serveUrl: string;

const repoName = () => `${textkit.repo.owner}/${textkit.repo.name}`;

/** `abp freeze` of textkit#3 with these extra flags, on the host's toolchains (textkit needs only Node). */
function freeze(extra: string[], gitDir = textkit.upstreamPath): Promise<CliResult> {
  return runAbp(
    [
      'freeze',
      ...['--repo', repoName(), '--base', fix.baseOid, '--fix', join(root, 'fix.patch'), '--git-dir', gitDir],
      ...['--issue', join(root, 'issue.json'), '--recipe', join(root, 'recipe.json')],
      ...['--pr', `https://github.com/${repoName()}/pull/40`, '--host', '--json'],
      ...extra,
    ],
    { ABP_HOME: operator },
    300_000,
  );
}

const errorCode = (result: CliResult): string => (JSON.parse(result.stdout) as { error: { code: string } }).error.code;

/** `abp serve --published-only` on the operator's data directory: its URL once it listens, and what it printed. */
async function startServe(): Promise<{ url: string; stdout: string }> {
  const child = spawn(process.execPath, [abpBin, 'serve', '--published-only', '--port', '0'], {
    // No Temporal listens at this address: nothing may try it.
    env: { ...process.env, ABP_HOME: operator, TEMPORAL_ADDRESS: '127.0.0.1:1', ABP_WEBHOOK_SECRET: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serves.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((listening, failed) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /read-only API at (\S+)\/v1 /.exec(stdout)?.[1];
      if (found !== undefined) listening(found);
    });
    child.once('close', (code) => failed(new Error(`abp serve exited with ${code}: ${stderr}`)));
  });
  return { url, stdout };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-hand-frozen-'));
  operator = join(root, 'operator');
  consumer = join(root, 'consumer');
  textkit = repoNamed(await buildRepos(root), 'textkit');
  fix = knownFix(textkit, 3);
  await writeFile(join(root, 'fix.patch'), fix.patch);
  await writeFile(join(root, 'issue.json'), JSON.stringify({ number: 3, title: fix.title, body: fix.body }));
  await writeFile(join(root, 'recipe.json'), JSON.stringify(RECIPES['node-test']));
  const init = await runAbp(['init'], { ABP_HOME: operator });
  expect(init.code, init.stderr).toBe(0);
  // The consumer pins the trust root the registry publishes.
  await mkdir(consumer, { recursive: true });
  await copyFile(join(operator, 'trust-root.json'), join(consumer, 'trust-root.json'));
});
afterAll(async () => {
  for (const serve of serves) if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  if (root) await rm(root, { recursive: true, force: true });
});

describe('abp freeze takes the provenance from its operator, and checks it first', () => {
  it('is a usage error without the draw’s facts, naming every missing flag, before any work', async () => {
    const none = await freeze([]);
    expect(none.code).toBe(2);
    for (const flag of ['--sourced-at', '--registry-version', '--draw-seed']) expect(none.stderr).toContain(flag);
    const some = await freeze(['--sourced-at', '2026-06-01T00:00:00Z']);
    expect(some.code).toBe(2);
    expect(some.stderr).toMatch(/missing --registry-version, --draw-seed \(/);
    const malformed = await freeze([
      ...['--sourced-at', '2026-06-01', '--registry-version', 'abp-registry/2026Q2', '--draw-seed', '7'],
    ]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--sourced-at must be an RFC 3339 UTC time');
    // Nothing was frozen, stored or published: the data directory holds what `abp init` made.
    expect((await readdir(operator)).sort()).toEqual(['keys', 'log', 'trust-root.json', 'trust-roots']);
  });

  it('refuses an issue older than every model cutoff at once, in one line, before reading the repository', async () => {
    const refused = await freeze(
      ['--sourced-at', '2019-05-01T00:00:00Z', '--registry-version', 'abp-registry/2026Q2', '--draw-seed', '7'],
      join(root, 'no-such-clone'),
    );
    expect(refused.code).toBe(1);
    expect(errorCode(refused)).toBe('no-verified-cutoff');
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('model-cutoffs.json');
  });

  it('refuses an issue, recipe or patch that is not a regular file, each naming it', async () => {
    const facts = ['--sourced-at', '2026-06-01T00:00:00Z', '--registry-version', 'abp-registry/2026Q2'];
    for (const [flag, what] of [
      ['--issue', 'an issue file'],
      ['--recipe', 'a runner recipe'],
      ['--fix', 'a fix patch'],
    ] as const) {
      // The last of a repeated flag counts: /dev/zero, which would never end, stands in for the real file.
      const refused = await freeze([...facts, '--draw-seed', '7', flag, '/dev/zero'], join(root, 'no-such-clone'));
      expect(refused.code, flag).toBe(1);
      expect(errorCode(refused), flag).toBe('not-a-regular-file');
      expect(refused.stderr, flag).toContain(`/dev/zero is not a regular file (a device): give ${what} as a file`);
    }
  });
});

describe('a task frozen by hand reaches abp run', () => {
  it('is frozen with the provenance given and published for abp serve', async () => {
    const result = await freeze([
      ...['--sourced-at', '2026-06-01T00:00:00Z', '--registry-version', 'abp-registry/2026Q2', '--draw-seed', '424242'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    frozen = JSON.parse(result.stdout) as PublishedTask & { published: string };
    expect(frozen.manifest.source).toMatchObject({
      sourcedAt: '2026-06-01T00:00:00Z',
      registryVersion: 'abp-registry/2026Q2',
      drawSeed: 424242,
    });
    expect(frozen.manifest.cutoffsVerified.length).toBeGreaterThan(0);
    // No golden trace was given: the manifest names none, and nothing stands in for one.
    expect(frozen.goldenTrace).toBeNull();
    expect(frozen.manifest.golden).toBeDefined();
    expect(frozen.manifest.golden).not.toHaveProperty('trace');
    expect(frozen.published).toBe(join(operator, 'published', 'tasks', `${frozen.taskId}.json`));
    const record = JSON.parse(await readFile(frozen.published, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({
      taskId: frozen.taskId,
      bundleDigest: frozen.digest,
      heldOutDigest: frozen.heldOutDigest,
      sourcedAt: '2026-06-01T00:00:00Z',
    });
    expect(record).not.toHaveProperty('goldenTraceDigest');
  });

  it('is listed by abp serve --published-only, which needs no Temporal', async () => {
    const started = await startServe();
    serveUrl = started.url;
    expect(started.stdout).toContain('tasks frozen by hand only');
    const listed = (await (await fetch(`${serveUrl}/v1/tasks`)).json()) as {
      tasks: Array<{ taskId: string; state: string; bundleDigest: string; heldOutDigest: string }>;
    };
    expect(listed.tasks).toEqual([
      expect.objectContaining({
        taskId: frozen.taskId,
        state: 'scored',
        bundleDigest: frozen.digest,
        heldOutDigest: frozen.heldOutDigest,
      }),
    ]);
  });

  it('is pulled by abp pull, verified against the pinned trust root and the registry’s log', async () => {
    const pulled = await runAbp(
      [
        ...['pull', frozen.taskId, '--from', serveUrl, '-o', join(consumer, 'pulled')],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(pulled.code, pulled.stderr).toBe(0);
    const task = JSON.parse(pulled.stdout) as PulledTask;
    expect(task).toMatchObject({ taskId: frozen.taskId, state: 'scored', digest: frozen.digest, environment: null });
    expect(task.log.index).toBeGreaterThanOrEqual(0);
  });

  it('is unpacked from its bundle file by abp unpack into the same folder abp pull makes', async () => {
    const unpacked = await runAbp(
      [
        ...['unpack', frozen.archivePath, '-o', join(consumer, 'unpacked')],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(unpacked.code, unpacked.stderr).toBe(0);
    const task = JSON.parse(unpacked.stdout) as UnpackedTask;
    expect(task).toMatchObject({ taskId: frozen.taskId, digest: frozen.digest, log: null, environment: null });
    const pulledDir = join(consumer, 'pulled', frozen.taskId);
    const unpackedDir = join(consumer, 'unpacked', frozen.taskId);
    // The layout abp pull makes, byte for byte, the held-out part apart; provenance.json says where the bundle came from.
    expect((await readdir(join(unpackedDir, 'task'))).sort()).toEqual((await readdir(join(pulledDir, 'task'))).sort());
    const heldOut = (await readdir(join(pulledDir, 'held-out'), { recursive: true })).sort();
    expect((await readdir(join(unpackedDir, 'held-out'), { recursive: true })).sort()).toEqual(heldOut);
    for (const file of ['task/task.json', 'task/issue.md', ...heldOut.map((path) => `held-out/${path}`)]) {
      if (!file.endsWith('/') && (await readFile(join(pulledDir, file)).catch(() => null)) !== null)
        expect((await readFile(join(unpackedDir, file))).equals(await readFile(join(pulledDir, file))), file).toBe(
          true,
        );
    }
    const provenance = JSON.parse(await readFile(join(unpackedDir, 'task', 'provenance.json'), 'utf8')) as {
      bundleUrl: string | null;
      log?: unknown;
    };
    expect(provenance).toMatchObject({ bundleDigest: frozen.digest, bundleUrl: null });
    expect(provenance.log).toBeUndefined();

    // Given the registry, it proves the log entry as abp pull does.
    const logged = await runAbp(
      [
        ...['unpack', frozen.archivePath, '-o', join(consumer, 'unpacked-logged'), '--from', serveUrl],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(logged.code, logged.stderr).toBe(0);
    expect((JSON.parse(logged.stdout) as UnpackedTask).log).toMatchObject({ origin: 'abp-log/registry' });

    // A second unpack into the same folder is refused, as a second pull is.
    const again = await runAbp(
      [
        'unpack',
        frozen.archivePath,
        '-o',
        join(consumer, 'unpacked'),
        '--trust-root',
        join(consumer, 'trust-root.json'),
        '--json',
      ],
      { ABP_HOME: consumer },
    );
    expect(again.code).toBe(1);
    expect(errorCode(again)).toBe('destination-exists');
  });

  it('refuses a tampered bundle with the code abp pull gives, leaving nothing behind', async () => {
    const tampered = join(root, 'tampered.tar');
    const bytes = await readFile(frozen.archivePath);
    bytes[bytes.length - 2048] = (bytes[bytes.length - 2048] ?? 0) ^ 0x01;
    await writeFile(tampered, bytes);
    const output = join(consumer, 'tampered');
    const refused = await runAbp(
      [
        ...['unpack', tampered, '--signature', frozen.signaturePath, '-o', output],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(refused.code).toBe(1);
    // pull.integration.test.ts: changed bytes under a signature of the original are tampered-bundle there too.
    expect(errorCode(refused)).toBe('tampered-bundle');
    expect(await readdir(output).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
  });

  it('is graded by abp run from both folders: the reference engine resolves it, the no-op engine does not', async () => {
    for (const folder of ['pulled', 'unpacked']) {
      const tasksDir = join(consumer, folder);
      const dir = join(root, `run-${folder}`);
      await mkdir(dir);
      const adapters = (['reference', 'noop'] as const).map((engine) => ({
        ...ADAPTER_DEFAULTS,
        engine,
        command: [process.execPath, engineProgram(engine), '--input', '{inputFile}', '--tasks', tasksDir],
        program: [...engineProgramPaths(), tasksDir],
      }));
      await writeFile(
        join(dir, 'adapters.json'),
        JSON.stringify({ schema: 'abp-adapters/v1', executionPolicy: 'trusted-local', adapters }),
      );
      await writeFile(
        join(dir, 'run.json'),
        JSON.stringify({
          schema: 'abp-run/v1',
          engines: adapters.map((adapter) => ({ name: adapter.engine, version: '1.0.0' })),
          model: 'abp/demo-model',
          budgetUsd: 5,
          timeoutSeconds: 300,
          trials: 1,
          ordering: 'abba',
          seed: 7,
          tasks: [frozen.taskId],
        }),
      );
      const run = await runAbp(
        [
          ...['run', '--config', join(dir, 'run.json'), '--adapters', join(dir, 'adapters.json')],
          ...['--tasks', tasksDir, '-o', join(dir, 'results'), '--json'],
        ],
        { ABP_HOME: consumer },
        600_000,
      );
      expect(run.code, run.stderr).toBe(0);
      const { verdict } = JSON.parse(run.stdout) as {
        verdict: { perEngine: Array<{ engine: string; scoredTrials: number; resolvedTrials?: number }> };
      };
      const outcomes = verdict.perEngine
        .map(({ engine, scoredTrials, resolvedTrials }) => [engine, scoredTrials, resolvedTrials])
        .sort();
      expect(outcomes, folder).toEqual([
        ['noop', 1, 0],
        ['reference', 1, 1],
      ]);
    }
  });
});

describe('a task frozen by hand with its golden trace', () => {
  const facts = [
    '--sourced-at',
    '2026-06-01T00:00:00Z',
    '--registry-version',
    'abp-registry/2026Q2',
    '--draw-seed',
    '7',
  ];
  let traced: PublishedTask & { published: string };
  let trace: string;

  it('refuses a trace that is not a clean abp-trace/v1 file of the task before reading the repository, naming the line', async () => {
    /** The task's trace with line `line` (1-based) replaced by `text`, written to a file of its own. */
    const withLine = async (name: string, line: number, text: string): Promise<string> => {
      const lines = goldenTraceText(frozen.taskId).split('\n');
      lines[line - 1] = text;
      const file = join(root, `${name}.abp-trace.jsonl`);
      await writeFile(file, lines.join('\n'));
      return file;
    };
    const refusals: Array<[string, string]> = [
      [await withLine('bad-json', 3, '{"t": "2026-06-02T10:00:02.000Z",'), 'line 3'],
      [await withLine('not-an-event', 2, '{"t":"2026-06-02T10:00:01.000Z","seq":2,"kind":"file.read"}'), 'line 2'],
    ];
    for (const [file, line] of refusals) {
      const refused = await freeze([...facts, '--golden-trace', file], join(root, 'no-such-clone'));
      expect(refused.code, file).toBe(1);
      expect(errorCode(refused), file).toBe('invalid-golden-trace');
      expect(refused.stderr, file).toContain(`${file} ${line}: `);
    }
    const large = join(root, 'large.abp-trace.jsonl');
    await writeFile(large, Buffer.alloc(8 * 1024 * 1024 + 1, 0x20));
    const tooLarge = await freeze([...facts, '--golden-trace', large], join(root, 'no-such-clone'));
    expect(errorCode(tooLarge)).toBe('golden-trace-too-large');
    expect(tooLarge.stderr).toContain(`${large} is larger than the 8 MiB`);
    // Nothing was stored for any of them.
    expect(await readdir(join(operator, 'traces')).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
  });

  it('names the trace in the manifest, keeps it by digest and publishes its digest; frozen again, the same bytes', async () => {
    trace = join(root, 'golden.abp-trace.jsonl');
    await writeFile(trace, goldenTraceText(frozen.taskId));
    const result = await freeze([...facts, '--golden-trace', trace]);
    expect(result.code, result.stderr).toBe(0);
    traced = JSON.parse(result.stdout) as PublishedTask & { published: string };
    expect(traced.manifest.golden?.trace).toBe(`traces/${frozen.taskId}.abp-trace.jsonl`);
    expect(traced.digest).not.toBe(frozen.digest);
    expect(traced.goldenTrace?.path).toBe(
      join(operator, 'traces', 'sha256', `${traced.goldenTrace?.digest.slice('sha256:'.length) ?? ''}.abp-trace.jsonl`),
    );
    expect((await readFile(traced.goldenTrace?.path ?? '')).equals(await readFile(trace))).toBe(true);
    expect(JSON.parse(await readFile(traced.published, 'utf8'))).toMatchObject({
      bundleDigest: traced.digest,
      goldenTraceDigest: traced.goldenTrace?.digest,
    });
    const again = await freeze([...facts, '--golden-trace', trace]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(traced);
  });

  it('is served where the manifest points, byte for byte, and listed with its digest', async () => {
    const served = await fetch(`${serveUrl}/v1/${traced.manifest.golden?.trace ?? ''}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(await readFile(trace))).toBe(true);
    const view = (await (await fetch(`${serveUrl}/v1/tasks/${traced.taskId}`)).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ bundleDigest: traced.digest, goldenTraceDigest: traced.goldenTrace?.digest });
  });

  it('is saved by abp pull beside the task, checked against its signed digest', async () => {
    const pulled = await runAbp(
      [
        ...['pull', traced.taskId, '--from', serveUrl, '-o', join(consumer, 'pulled-traced')],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(pulled.code, pulled.stderr).toBe(0);
    const task = JSON.parse(pulled.stdout) as PulledTask;
    const saved = join(consumer, 'pulled-traced', traced.taskId, 'traces', `${traced.taskId}.abp-trace.jsonl`);
    expect(task.goldenTrace).toEqual({
      path: saved,
      digest: traced.goldenTrace?.digest,
      bytes: (await readFile(trace)).length,
    });
    expect((await readFile(saved)).equals(await readFile(trace))).toBe(true);
    // Beside what the agent sees, never in it.
    expect(await readdir(join(consumer, 'pulled-traced', traced.taskId))).toEqual(['held-out', 'task', 'traces']);
  });

  it('refuses a trace whose bytes are not the ones signed, leaving nothing behind', async () => {
    const stored = traced.goldenTrace?.path ?? '';
    await chmod(stored, 0o644);
    await writeFile(stored, goldenTraceText(traced.taskId).replace('"outcome":"resolved"', '"outcome":"unresolved"'));
    // A server of its own: the one above keeps the bytes it read in memory, as it may, since they never change.
    const { url } = await startServe();
    const output = join(consumer, 'pulled-tampered-trace');
    const refused = await runAbp(
      [
        ...['pull', traced.taskId, '--from', url, '-o', output],
        ...['--trust-root', join(consumer, 'trust-root.json'), '--json'],
      ],
      { ABP_HOME: consumer },
    );
    expect(refused.code).toBe(1);
    expect(errorCode(refused)).toBe('digest-mismatch');
    expect(refused.stderr).toContain(
      `the golden trace ${traced.manifest.golden?.trace ?? ''} of task ${traced.taskId}`,
    );
    expect(await readdir(output).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
  });
});
