import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBounded } from '../../src/execution/bounded-command.js';
import type { BoundedCommand } from '../../src/execution/bounded-command.js';
import { reducedEnvironment } from '../../src/execution/environment.js';
import { sandboxArgv, sandboxStatus } from '../../src/execution/sandbox.js';
import { startEgressProxy } from '../../src/execution/egress-proxy.js';
import type { SandboxSpec } from '../../src/execution/sandbox.js';
import { isAlive } from '../../src/execution/liveness.js';
import { endedSoon } from './liveness.js';
import { asyncCodeOf, codeOf } from './execution-error.js';

// Under /tmp (private inside the sandbox) and under /var/tmp (the host's, read-only inside).
let scratch: string;
let outside: string;
let workspace: string;
let env: Record<string, string>;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'abp-sandbox-'));
  outside = await mkdtemp(path.join('/var/tmp', 'abp-sandbox-'));
  workspace = path.join(scratch, 'workspace');
  await mkdir(path.join(workspace, 'home'), { recursive: true });
  env = reducedEnvironment({
    hostEnv: process.env,
    allow: [],
    set: {},
    home: path.join(workspace, 'home'),
    tmp: path.join(workspace, 'home'),
  }).env;
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function sandboxed(
  argv: string[],
  sandbox: Partial<SandboxSpec> = {},
  overrides: Partial<BoundedCommand> = {},
): BoundedCommand {
  return {
    argv,
    cwd: workspace,
    env,
    timeoutMs: 20_000,
    maxOutputBytes: 64 * 1024,
    sandbox: { writable: [workspace], hidden: [], ...sandbox },
    ...overrides,
  };
}

/** Runs a node script in the sandbox and returns its trimmed stdout, failing loudly on stderr. */
async function nodeIn(script: string, sandbox: Partial<SandboxSpec> = {}): Promise<string> {
  const result = await runBounded(sandboxed(['node', '-e', script], sandbox));
  expect(result.stderr.toString()).toBe('');
  expect(result.exitCode).toBe(0);
  return result.stdout.toString().trim();
}

const tryWrite = (file: string): string =>
  `try { require('fs').writeFileSync(${JSON.stringify(file)}, 'x'); console.log('written') } catch (e) { console.log(e.code) }`;

describe('sandboxStatus', () => {
  it('finds a working bubblewrap on this machine (CI installs it: unavailable is a failure)', async () => {
    const status = await sandboxStatus();
    if (!status.available) expect.fail(status.reason);
    expect(status.bwrap).toMatch(/\/bwrap$/);
    expect(status.version).toMatch(/^\d+\.\d+/);
    expect(await sandboxStatus()).toBe(status);
  });
});

describe('a sandboxed command', () => {
  it('sees nothing of the host but the system folders, its toolchains and what is listed', async () => {
    await writeFile(path.join(outside, 'data.txt'), 'host data');
    const script = `const fs = require('fs'); console.log(JSON.stringify([fs.existsSync(${JSON.stringify(outside)}), fs.existsSync(${JSON.stringify(path.join(process.cwd(), 'package.json'))}), fs.readdirSync('/').sort()]))`;
    const [outsideSeen, cwdSeen, top] = JSON.parse(await nodeIn(script)) as [boolean, boolean, string[]];
    expect([outsideSeen, cwdSeen]).toEqual([false, false]);
    expect(top).not.toContain('var');
    expect(top).not.toContain('home');
    // The toolchains its PATH names run: python from its own folder, node from /usr.
    const python = await runBounded(sandboxed(['python3', '-c', 'import sys; print(sys.prefix)']));
    expect(python.exitCode).toBe(0);
    await rm(path.join(outside, 'data.txt'));
  });

  it('cannot write outside its writable paths, even where it may read', async () => {
    expect(await nodeIn(tryWrite(path.join(outside, 'escaped')))).toBe('ENOENT');
    expect(await nodeIn(tryWrite(path.join(outside, 'escaped')), { readOnly: [outside] })).toBe('EROFS');
    await expect(readdir(outside)).resolves.toEqual([]);
  });

  it('writes inside its writable paths, and the files persist on the host', async () => {
    expect(await nodeIn(tryWrite(path.join(workspace, 'made-inside')))).toBe('written');
    expect(await readFile(path.join(workspace, 'made-inside'), 'utf8')).toBe('x');
  });

  it('writes to HOME and TMPDIR when they lie in a writable path', async () => {
    expect(
      await nodeIn(`${tryWrite(path.join(workspace, 'home', 'h'))}; ${tryWrite(path.join(workspace, 'home', 't'))}`),
    ).toBe('written\nwritten');
  });

  it('sees hidden folders as empty and hidden files as empty', async () => {
    const heldOut = path.join(outside, 'held-out');
    await mkdir(heldOut);
    await writeFile(path.join(heldOut, 'answers.txt'), 'secret');
    await writeFile(path.join(outside, 'oracle.txt'), 'secret too');
    const script = `const fs = require('fs'); console.log(JSON.stringify([fs.readdirSync(${JSON.stringify(heldOut)}), fs.readFileSync(${JSON.stringify(path.join(outside, 'oracle.txt'))}, 'utf8')]))`;
    expect(
      JSON.parse(
        await nodeIn(script, {
          readOnly: [outside],
          hidden: [heldOut, path.join(outside, 'oracle.txt'), path.join(outside, 'absent')],
        }),
      ),
    ).toEqual([[], '']);
    expect(await readFile(path.join(outside, 'oracle.txt'), 'utf8')).toBe('secret too');
  });

  it('sees only its own workspace when that lies inside a hidden results folder', async () => {
    const results = path.join(outside, 'results');
    const own = path.join(results, 'trial-1', 'workspace');
    await mkdir(own, { recursive: true });
    await writeFile(path.join(results, 'trial-0.json'), '{}');
    const script = `const fs = require('fs'); ${tryWrite(path.join(own, 'out.txt'))}; console.log(JSON.stringify(fs.readdirSync(${JSON.stringify(results)})))`;
    const result = await runBounded(
      sandboxed(['node', '-e', script], { writable: [own], hidden: [results], readOnly: [outside] }, { cwd: own }),
    );
    expect(result.stdout.toString().trim().split('\n')).toEqual(['written', '["trial-1"]']);
    expect(await readFile(path.join(own, 'out.txt'), 'utf8')).toBe('x');
  });

  it('has a private /tmp', async () => {
    const hostFile = path.join(os.tmpdir(), `abp-host-only-${process.pid}`);
    await writeFile(hostFile, 'host');
    try {
      const script = `const fs = require('fs'); console.log(fs.existsSync(${JSON.stringify(hostFile)})); fs.writeFileSync('/tmp/abp-made-in-sandbox-${process.pid}', 'x')`;
      expect(await nodeIn(script)).toBe('false');
      await expect(readFile(`/tmp/abp-made-in-sandbox-${process.pid}`)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(hostFile, { force: true });
    }
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        // The client exits as soon as it has connected: a reset is expected.
        socket.on('error', () => undefined);
        socket.end();
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise((closed) => server.close(closed));
    });

    it('cannot reach a TCP server listening on the host loopback', async () => {
      const script = `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => console.log(e.code))`;
      // The same script outside the sandbox connects, so the refusal below is the sandbox's doing.
      const unsandboxed = await runBounded({ ...sandboxed(['node', '-e', script]), sandbox: null });
      expect(unsandboxed.stdout.toString().trim()).toBe('connected');
      const before = connections;
      expect(await nodeIn(script)).toBe('ECONNREFUSED');
      expect(connections).toBe(before);
    });
  });

  it('dies, all of it, when the timeout fires', async () => {
    const marker = `abp-sandbox-marker-${process.pid}-${Date.now()}`;
    // The command and its child both ignore SIGTERM and carry the marker in their command lines.
    const child = `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`;
    const script = `${child}; require('child_process').spawn('node', ['-e', ${JSON.stringify(child)}, process.argv[1]], { stdio: 'ignore' })`;
    const running = runBounded(sandboxed(['node', '-e', script, marker], {}, { timeoutMs: 3_000 }));
    // Outer bwrap, bwrap's init in the pid namespace, the command, its child.
    let seen: number[] = [];
    for (let attempt = 0; attempt < 100 && seen.length < 4; attempt += 1) {
      await delay(50);
      seen = await processesWith(marker);
    }
    expect(seen).toHaveLength(4);
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(await endedSoon(seen)).toBe(true);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('reports a program that does not exist as spawnError ENOENT, without starting bwrap', async () => {
    const missing = await runBounded(sandboxed(['abp-no-such-program-7f3a']));
    expect(missing.spawnError?.code).toBe('ENOENT');
    const absent = await runBounded(sandboxed([path.join(workspace, 'absent-binary')]));
    expect(absent.spawnError?.code).toBe('ENOENT');
  });

  it('reports a program that is not executable as spawnError EACCES', async () => {
    await writeFile(path.join(workspace, 'plain.sh'), '#!/bin/sh\n');
    const result = await runBounded(sandboxed(['./plain.sh']));
    expect(result.spawnError?.code).toBe('EACCES');
  });

  it('throws when a writable path does not exist: the harness must create it first', async () => {
    expect(
      await asyncCodeOf(() => runBounded(sandboxed(['true'], { writable: [path.join(scratch, 'never-made')] }))),
    ).toBe('sandbox-path-missing');
  });
});

describe('a command in the host view (trusted-local)', () => {
  const host = (argv: string[], sandbox: Partial<SandboxSpec> = {}, overrides: Partial<BoundedCommand> = {}) =>
    runBounded(sandboxed(argv, { view: 'host', ...sandbox }, overrides));

  it('writes where the user may, but cannot see what is hidden nor write what is read-only', async () => {
    const hidden = path.join(outside, 'host-view-results');
    const guarded = path.join(outside, 'host-view-cache');
    await mkdir(hidden, { recursive: true });
    await mkdir(guarded, { recursive: true });
    await writeFile(path.join(hidden, 'verdict.json'), '{}');
    const script = `const fs = require('fs'); ${tryWrite(path.join(outside, 'free.txt'))}; ${tryWrite(path.join(guarded, 'blob'))}; console.log(JSON.stringify(fs.readdirSync(${JSON.stringify(hidden)})))`;
    const result = await host(['node', '-e', script], { hidden: [hidden], readOnly: [guarded] });
    expect(result.stdout.toString().trim().split('\n')).toEqual(['written', 'EROFS', '[]']);
    expect(await readFile(path.join(outside, 'free.txt'), 'utf8')).toBe('x');
    expect(await readdir(guarded)).toEqual([]);
    expect(await readdir(hidden)).toEqual(['verdict.json']);
    await rm(path.join(outside, 'free.txt'));
  });

  it("ends with its command: a daemon started with setsid does not outlive it, nor can it read the grader's variables", async () => {
    const marker = path.join(outside, `survivor-${process.pid}`);
    process.env['ABP_TEST_GRADER_ONLY'] = 'grader-secret-value';
    try {
      const script = `setsid sh -c 'sleep 1; echo alive > ${marker}' & tr '\\000' '\\n' < /proc/$PPID/environ; ls /proc | grep -c '^[0-9]'`;
      const result = await host(['sh', '-c', script]);
      expect(result.exitCode).toBe(0);
      const out = result.stdout.toString();
      expect(out).not.toContain('grader-secret-value');
      expect(out).toContain(`HOME=${path.join(workspace, 'home')}`);
      await delay(2_000);
      await expect(readFile(marker, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      delete process.env['ABP_TEST_GRADER_ONLY'];
    }
  });
});

describe('the egress proxy as the one way out of the isolated view', () => {
  it('reaches an allowed host through the proxy by name, and nothing else: refused, recorded, no way around', async () => {
    const origin = createHttpServer((request, response) => response.end(`origin saw ${request.url ?? ''}`));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const port = (origin.address() as { port: number }).port;
    const proxy = await startEgressProxy({
      listen: { path: path.join(scratch, 'egress.sock') },
      allow: [{ host: 'origin.abp.test', ports: [port] }],
      hosts: { 'origin.abp.test': '127.0.0.1' },
    });
    try {
      // Plain node: it reads no proxy variable itself, so the script asks the proxy the relay named, as clients do.
      const script = `
        const http = require('node:http');
        const proxy = new URL(process.env.HTTP_PROXY);
        const get = (url, viaProxy) => new Promise((resolve) => {
          const target = new URL(url);
          const request = http.get(viaProxy
            ? { host: proxy.hostname, port: proxy.port, path: url, headers: { host: target.host } }
            : { host: target.hostname, port: target.port, path: target.pathname }, (response) => {
            let body = '';
            response.on('data', (chunk) => (body += chunk));
            response.on('end', () => resolve(response.statusCode + ' ' + body.trim()));
          });
          request.on('error', (error) => resolve(error.code));
        });
        (async () => {
          console.log(await get('http://origin.abp.test:${port}/allowed', true));
          console.log(await get('http://other.abp.test:${port}/refused', true));
          console.log(await get('http://127.0.0.1:${port}/direct', false));
        })();`;
      const result = await runBounded(sandboxed([process.execPath, '-e', script], { egress: proxy.address }));
      const lines = result.stdout.toString('utf8').trim().split('\n');
      expect(lines[0]).toBe('200 origin saw /allowed');
      expect(lines[1]).toMatch(/^403 abp egress: other\.abp\.test:\d+ is not a host this command may reach$/);
      // The sandbox's own loopback has nothing on that port: the host's is not reachable but through the proxy.
      expect(lines[2]).toBe('ECONNREFUSED');
      expect(proxy.attempts()).toEqual([
        { host: 'origin.abp.test', port, allowed: true, error: null },
        { host: 'other.abp.test', port, allowed: false, error: 'not in the allow-list' },
      ]);
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => origin.close(() => resolve()));
    }
  });

  it('refuses an egress proxy for the host view, which has the network already', () => {
    expect(
      codeOf(() => sandboxArgv({ view: 'host', writable: [], hidden: [], egress: '/tmp/x.sock' }, ['true'], '/')),
    ).toBe('egress-with-network');
  });
});

describe('sandboxArgv', () => {
  it('mounts /tmp before writable paths, and a hidden folder before the writable path inside it', () => {
    const argv = sandboxArgv({ writable: [path.join(outside)], hidden: ['/var/tmp'] }, ['node', '-v'], outside);
    const tmpfsTmp = argv.indexOf('/tmp');
    const hiddenAt = argv.indexOf('/var/tmp');
    const bindAt = argv.indexOf('--bind');
    expect(argv.slice(argv.indexOf('--'))).toEqual(['--', 'node', '-v']);
    expect(argv).toEqual(expect.arrayContaining(['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind']));
    expect(tmpfsTmp).toBeGreaterThan(0);
    expect(tmpfsTmp).toBeLessThan(hiddenAt);
    expect(hiddenAt).toBeLessThan(bindAt);
    expect(argv[bindAt + 1]).toBe(outside);
  });

  it('refuses a path that is both writable and hidden', () => {
    expect(codeOf(() => sandboxArgv({ writable: [outside], hidden: [outside] }, ['true'], outside))).toBe(
      'conflicting-sandbox-paths',
    );
  });
});

/** Host pids (not zombies) whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes(marker) && isAlive(Number(entry)))
        pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
