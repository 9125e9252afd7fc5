// report.html links each task to the signed bundle it came from: a real bundle (built from a real repository, stored,
// signed and logged as the freeze does) served by the real `abp serve` API, pulled the way `abp pull` does it (fetch,
// verify against the pinned trust root, unpack, write provenance.json), graded digest from the real task loader. The
// report's links must answer with those very bytes; without provenance nothing links out; damaged or foreign
// provenance and unsafe URLs are refused by code.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackBundle } from '@abp/grader/bundle';
import { renderReport } from '@abp/grader/html-report';
import {
  ProvenanceError,
  parseServeUrl,
  provenanceOf,
  readTasksProvenance,
  writeTaskProvenance,
  PROVENANCE_FILE,
  type TaskProvenance,
} from '@abp/grader/pull';
import { readRunResults, type RunResults } from '@abp/grader/results';
import { loadTaskDirectory } from '@abp/grader/config';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { TASK_BUNDLE_PREDICATE, taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { verifyStatementBundle } from '@abp/grader/trust';
import type { LogEntry, SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { buildDataDir, SIGNED_AT, type DataDir } from '../status/data-dir.js';
import { makeRun, matrix, taskDigest, writeResultsFolder } from '../../../grader/test/support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-report-provenance-'));
const LOCAL_TASK = 'task-local';
let data: DataDir;
let server: RunningServer;
let tasksDir: string;
let pulledDir: string;
let results: RunResults;
let provenance: Map<string, TaskProvenance>;
let folders = 0;

const hexOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function fetchBytes(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** What `abp pull <task> --from <url>` does with a task: fetch, verify against the pinned trust root, unpack, record. */
async function pull(taskId: string, digest: string, from: string, taskDir: string): Promise<TaskProvenance> {
  const archive = await fetchBytes(`${from}/v1/bundles/${digest}`);
  const signature = JSON.parse(
    (await fetchBytes(`${from}/v1/bundles/${digest}/signature`)).toString('utf8'),
  ) as unknown;
  const verified = await verifyStatementBundle(signature, data.trustRoot, {
    subjects: [{ name: taskBundleSubjectNames(taskId).bundle, sha256: hexOf(archive) }],
    predicateType: TASK_BUNDLE_PREDICATE,
  });
  const unpacked = await unpackBundle(archive, { taskDir, expectedDigest: digest });
  const recorded = provenanceOf({
    taskId,
    bundleDigest: unpacked.digest,
    heldOutDigest: unpacked.heldOutDigest,
    verified,
    trustRootVersion: data.trustRoot.version,
    serveUrl: from,
  });
  await writeTaskProvenance(taskDir, recorded);
  return recorded;
}

beforeAll(async () => {
  data = await buildDataDir(root);
  // Bundles and their signatures are served from the store alone: no task source is needed.
  server = await startServer({ port: 0, host: '127.0.0.1', api: { home: data.home }, log: () => undefined });

  tasksDir = join(root, 'tasks');
  pulledDir = join(tasksDir, data.bundle.taskId);
  await pull(data.bundle.taskId, data.bundle.digest, server.url, pulledDir);
  await mkdir(join(tasksDir, LOCAL_TASK), { recursive: true });

  const graded = (await loadTaskDirectory(pulledDir)).digest;
  const digests = new Map([
    [data.bundle.taskId, graded],
    [LOCAL_TASK, taskDigest(LOCAL_TASK)],
  ]);
  const run = makeRun({ tasks: [data.bundle.taskId, LOCAL_TASK] });
  const parent = join(root, 'results');
  await mkdir(parent);
  const folder = await writeResultsFolder(parent, {
    run,
    trials: matrix(run, (task) => ({ taskDigest: digests.get(task) })),
    tasks: [...digests].map(([id, digest]) => ({ id, digest })).sort((a, b) => (a.id < b.id ? -1 : 1)),
  });
  results = await readRunResults(folder);
  provenance = await readTasksProvenance([...digests.keys()].map((id) => ({ id, dir: join(tasksDir, id) })));
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** The row of the tasks table for `taskId`. */
function rowOf(html: string, taskId: string): string {
  const start = html.indexOf(`<tr id="task-${taskId}">`);
  expect(start, `no row for ${taskId}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</tr>', start) + '</tr>'.length);
}

const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1] ?? '');

describe('report.html and task provenance', () => {
  it('links a pulled task to its bundle and signed statement on the serve it came from, and those links answer with the signed bytes', async () => {
    expect([...provenance.keys()]).toEqual([data.bundle.taskId]);
    const html = renderReport(results, { provenance });
    const { digest, heldOutDigest, taskId } = data.bundle;
    const row = rowOf(html, taskId);
    const bundleUrl = `${server.url}/v1/bundles/${digest}`;
    const statementUrl = `${bundleUrl}/signature`;
    expect(row).toContain(`<a href="${bundleUrl}"><code>${digest}</code></a>`);
    expect(row).toContain(`held-out part <code>${heldOutDigest}</code>`);
    expect(row).toContain(`<a href="${statementUrl}">task-bundle statement</a>`);
    expect(row).toContain(
      `signed by key ${data.key.keyId.slice(0, 16)}… at ${SIGNED_AT.bundle}, verified against trust root v1`,
    );
    expect(row).toContain(`<code>${results.tasks.find((task) => task.id === taskId)?.digest}</code>`);
    expect(html).toContain('1 of 2 tasks came from a signed bundle');

    // The links are the real API's: the archive hashes to its digest, the statement verifies and names it.
    expect(`sha256:${hexOf(await fetchBytes(bundleUrl))}`).toBe(digest);
    const verified = await verifyStatementBundle(
      JSON.parse((await fetchBytes(statementUrl)).toString('utf8')),
      data.trustRoot,
      {
        subjects: [{ name: taskBundleSubjectNames(taskId).bundle, sha256: digest.slice('sha256:'.length) }],
        predicateType: TASK_BUNDLE_PREDICATE,
      },
    );
    expect(verified.statement.predicate).toMatchObject({ taskId, bundleDigest: digest, heldOutDigest });

    expect(rowOf(html, LOCAL_TASK)).toContain('not from a signed bundle: the task folder has no provenance.json');
    // Each trial's task leads to its row.
    expect(html).toContain(`<td><a href="#task-${taskId}">${taskId}</a></td>`);
    expect(html).toContain(`<td><a href="#task-${LOCAL_TASK}">${LOCAL_TASK}</a></td>`);
  });

  it('links to the serve URL it is given instead, under any base path', () => {
    const html = renderReport(results, { provenance, serveUrl: 'https://abp.example.org/registry/' });
    const row = rowOf(html, data.bundle.taskId);
    expect(row).toContain(`<a href="https://abp.example.org/registry/v1/bundles/${data.bundle.digest}"><code>`);
    expect(row).toContain(
      `<a href="https://abp.example.org/registry/v1/bundles/${data.bundle.digest}/signature">task-bundle statement</a>`,
    );
    expect(html).not.toContain(server.url);
  });

  it('without provenance, shows every task as local and links nowhere outside the page', () => {
    const html = renderReport(results);
    for (const id of [data.bundle.taskId, LOCAL_TASK]) expect(rowOf(html, id)).toContain('not from a signed bundle');
    expect(html).toContain('0 of 2 tasks came from a signed bundle');
    expect(hrefsOf(html).filter((href) => /^[a-z]+:/i.test(href))).toEqual([]);
  });

  it('renders the same bytes each time, and pulling the same bundle again writes the same provenance.json', async () => {
    expect(renderReport(results, { provenance })).toBe(renderReport(results, { provenance }));
    const again = join(root, `again-${(folders += 1)}`);
    await pull(data.bundle.taskId, data.bundle.digest, server.url, again);
    expect(await readFile(join(again, PROVENANCE_FILE), 'utf8')).toBe(
      await readFile(join(pulledDir, PROVENANCE_FILE), 'utf8'),
    );
  });

  it('escapes what a keyless signer identity says', () => {
    const pulled = provenance.get(data.bundle.taskId) as TaskProvenance;
    const forged: TaskProvenance = {
      ...pulled,
      signer: { kind: 'keyless', identity: '"><script>alert(1)</script>', issuer: 'https://token.example.org' },
    };
    const html = renderReport(results, { provenance: new Map([[pulled.taskId, forged]]) });
    expect(html).not.toMatch(/<script/i);
    expect(rowOf(html, pulled.taskId)).toContain(
      'signed by &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; (issuer https://token.example.org)',
    );
  });

  it("records where the bundle's signature is in the transparency log; provenance written without it still reads", async () => {
    // Found as `abp pull` finds it: the log entry of the signature's bytes as served, and the newest checkpoint.
    const signature = await fetchBytes(`${server.url}/v1/bundles/${data.bundle.digest}/signature`);
    const lookup = (await (await fetch(`${server.url}/v1/log/lookup?digest=sha256:${hexOf(signature)}`)).json()) as {
      entries: LogEntry[];
    };
    const latest = (await (await fetch(`${server.url}/v1/log/checkpoints/latest`)).json()) as SignedCheckpoint;
    const log = {
      origin: latest.checkpoint.origin,
      index: lookup.entries[0]?.index ?? -1,
      checkpointSize: latest.checkpoint.size,
      rootHash: latest.checkpoint.rootHash,
    };
    expect(log).toMatchObject({ index: 2, checkpointSize: 3 });

    const pulled = provenance.get(data.bundle.taskId) as TaskProvenance;
    expect(pulled.log).toBeUndefined();
    const withLog = provenanceOf({
      taskId: pulled.taskId,
      bundleDigest: pulled.bundleDigest,
      heldOutDigest: pulled.heldOutDigest,
      verified: { signer: pulled.signer, signedAt: pulled.signedAt },
      trustRootVersion: pulled.trustRootVersion,
      serveUrl: server.url,
      log,
    });
    const dir = join(root, `with-log-${(folders += 1)}`);
    await mkdir(dir);
    await writeTaskProvenance(dir, withLog);
    const text = await readFile(join(dir, PROVENANCE_FILE), 'utf8');
    // The same file as before with the log last, so provenance without it keeps its bytes.
    const { log: written, ...rest } = JSON.parse(text) as TaskProvenance;
    expect(written).toEqual(log);
    expect(`${JSON.stringify(rest, null, 2)}\n`).toBe(await readFile(join(pulledDir, PROVENANCE_FILE), 'utf8'));
    expect((await readTasksProvenance([{ id: pulled.taskId, dir }])).get(pulled.taskId)?.log).toEqual(log);
    expect(renderReport(results, { provenance: new Map([[pulled.taskId, withLog]]) })).toContain(
      `<tr id="task-${pulled.taskId}">`,
    );

    // A log position that is not one is refused like any other damage.
    const damaged = join(root, `with-log-${(folders += 1)}`);
    await mkdir(damaged);
    await writeFile(join(damaged, PROVENANCE_FILE), text.replace(`"index": ${log.index}`, '"index": -1'));
    await expect(readTasksProvenance([{ id: pulled.taskId, dir: damaged }])).rejects.toMatchObject({
      code: 'invalid-provenance',
    });
  });

  it('refuses provenance that is damaged, belongs to another task or links anywhere but http(s), and an unsafe serve URL', async () => {
    const codeOf = (work: () => unknown) =>
      Promise.resolve()
        .then(work)
        .then(
          () => 'no error',
          (error: unknown) =>
            error instanceof ProvenanceError ? error.code : `not a ProvenanceError: ${String(error)}`,
        );
    const pulled = await readFile(join(pulledDir, PROVENANCE_FILE), 'utf8');
    const folderWith = async (text: string) => {
      const dir = join(root, `case-${(folders += 1)}`);
      await mkdir(dir);
      await writeFile(join(dir, PROVENANCE_FILE), text);
      return dir;
    };
    const scripted = await folderWith(
      pulled.replace(`"bundleUrl": "${server.url}`, '"bundleUrl": "javascript:alert(1)//'),
    );
    expect(await codeOf(() => readTasksProvenance([{ id: data.bundle.taskId, dir: scripted }]))).toBe(
      'invalid-provenance',
    );
    const cut = await folderWith(pulled.slice(0, 40));
    expect(await codeOf(() => readTasksProvenance([{ id: data.bundle.taskId, dir: cut }]))).toBe('invalid-provenance');
    const foreign = await folderWith(pulled);
    expect(await codeOf(() => readTasksProvenance([{ id: LOCAL_TASK, dir: foreign }]))).toBe('provenance-mismatch');
    const pulledProvenance = provenance.get(data.bundle.taskId) as TaskProvenance;
    expect(await codeOf(() => renderReport(results, { provenance: new Map([[LOCAL_TASK, pulledProvenance]]) }))).toBe(
      'provenance-mismatch',
    );

    expect(await codeOf(() => parseServeUrl('javascript:alert(1)'))).toBe('invalid-serve-url');
    expect(await codeOf(() => renderReport(results, { provenance, serveUrl: 'not a url' }))).toBe('invalid-serve-url');
    expect(await codeOf(() => renderReport(results, { provenance, serveUrl: 'https://abp.example.org/?next=x' }))).toBe(
      'invalid-serve-url',
    );
  });
});
