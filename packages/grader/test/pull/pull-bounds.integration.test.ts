// `abp pull` against a hostile registry: a real HTTP server that advertises a task and then sends a bundle that is too
// large (announced or not), trickles, or never ends. The real command, as a child process, refuses each with its own
// code within its limits, writes nothing to the output folder, removes its staging folder when it is stopped by SIGTERM,
// and removes a staging folder a killed pull left behind.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf } from '@abp/protocol/signing/key-id';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { runAbp } from '../support/cli.js';

const TASK = 'gh-acme-widgets-7';
const DIGEST = `sha256:${'a'.repeat(64)}`;
type Mode = 'announced-huge' | 'endless' | 'trickle';

let root: string;
let trustRoot: string;
let server: Server;
let base: string;
let mode: Mode = 'endless';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-pull-bounds-'));
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  trustRoot = join(root, 'trust-root.json');
  await saveTrustRoot(
    trustRoot,
    createTrustRoot(
      { keyId: keyIdOf(publicKey), publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      '2026-01-01T00:00:00Z',
    ),
  );
  server = createServer((request, response) => {
    if (request.url === `/v1/tasks/${TASK}`) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          taskId: TASK,
          repo: 'acme/widgets',
          issue: 7,
          state: 'scored',
          bundleDigest: DIGEST,
          heldOutDigest: null,
          mergedAt: null,
          scoredUntil: null,
        }),
      );
      return;
    }
    if (request.url !== `/v1/bundles/${DIGEST}`) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"not here"}');
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 1);
    switch (mode) {
      case 'announced-huge':
        response.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
        response.write(chunk);
        return;
      case 'endless': {
        response.writeHead(200);
        const more = () => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', more);
        };
        more();
        return;
      }
      case 'trickle':
        response.writeHead(200);
        response.write('x');
        return;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function pullInto(output: string, ...flags: string[]) {
  await mkdir(output, { recursive: true });
  const started = Date.now();
  const result = await runAbp(
    ['pull', TASK, '--from', base, '--trust-root', trustRoot, '-o', output, '--json', ...flags],
    { ABP_HOME: join(root, 'home') },
    60_000,
  );
  // With --json the refusal's code is data on stdout; its message is on stderr.
  const code = result.stdout === '' ? null : (JSON.parse(result.stdout) as { error?: { code: string } }).error?.code;
  return { ...result, errorCode: code ?? null, seconds: (Date.now() - started) / 1000 };
}

describe('abp pull against a registry that sends too much or too slowly', () => {
  it('refuses a bundle announced larger than --max-bytes before reading it: download-too-large', async () => {
    mode = 'announced-huge';
    const output = join(root, 'out-announced');
    const result = await pullInto(output, '--max-bytes', String(1024 * 1024));
    expect(result.code, result.stderr).toBe(1);
    expect(result.errorCode).toBe('download-too-large');
    expect(result.stderr).toContain(`announces ${10 * 1024 ** 3} bytes`);
    expect(await readdir(output)).toEqual([]);
  });

  it('stops a body that runs past --max-bytes without announcing it: download-too-large', async () => {
    mode = 'endless';
    const output = join(root, 'out-endless');
    const result = await pullInto(output, '--max-bytes', String(4 * 1024 * 1024));
    expect(result.code, result.stderr).toBe(1);
    expect(result.errorCode).toBe('download-too-large');
    expect(result.stderr).toContain('sent more than the 4194304 bytes allowed');
    expect(await readdir(output)).toEqual([]);
  });

  it('gives up a body that goes quiet (--idle-timeout) or runs past its --deadline: download-timeout', async () => {
    mode = 'trickle';
    const quiet = join(root, 'out-quiet');
    const idle = await pullInto(quiet, '--idle-timeout', '1');
    expect(idle.code, idle.stderr).toBe(1);
    expect(idle.errorCode).toBe('download-timeout');
    expect(idle.stderr).toContain('sent nothing for 1 s');
    expect(idle.seconds).toBeLessThan(30);
    expect(await readdir(quiet)).toEqual([]);

    mode = 'endless';
    const slow = join(root, 'out-deadline');
    const late = await pullInto(slow, '--deadline', '1', '--max-bytes', String(1024 ** 4));
    expect(late.code, late.stderr).toBe(1);
    expect(late.errorCode).toBe('download-timeout');
    expect(late.stderr).toContain('did not end within 1 s');
    expect(await readdir(slow)).toEqual([]);
  });

  it('removes its staging folder when stopped by SIGTERM, and a killed pull’s at the next start', async () => {
    mode = 'trickle';
    const output = join(root, 'out-signal');
    await mkdir(output, { recursive: true });
    const abpBin = fileURLToPath(new URL('../../bin/abp.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [abpBin, 'pull', TASK, '--from', base, '--trust-root', trustRoot, '-o', output, '--idle-timeout', '120'],
      { env: { ...process.env, ABP_HOME: join(root, 'home') }, stdio: 'ignore' },
    );
    const exited = once(child, 'exit');
    // Wait for the staging folder, then stop the pull as Ctrl-C or a CI timeout would.
    const deadline = Date.now() + 30_000;
    while ((await readdir(output)).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await readdir(output))[0]).toMatch(new RegExp(`^\\.${TASK}\\.pull-${child.pid}-`));
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(143);
    expect(await readdir(output)).toEqual([]);

    // A pull killed outright (SIGKILL runs no handler) leaves its folder; the next pull of the task removes it.
    const left = join(output, `.${TASK}.pull-999999999-${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`);
    await mkdir(left);
    mode = 'announced-huge';
    const next = await pullInto(output, '--max-bytes', '1024');
    expect(next.code, next.stderr).toBe(1);
    expect(await readdir(output)).toEqual([]);
  });
});
