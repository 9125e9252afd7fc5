// Clone, fetch and push over smart HTTP against real bare repositories, with the real git client.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGit } from '../../src/git/http-backend.js';

const execGit = promisify(execFile);

// Asynchronous on purpose: the server runs in this process, and a synchronous git call would block it.
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execGit('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@example.invalid',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@example.invalid',
      GIT_TERMINAL_PROMPT: '0',
    },
    timeout: 30_000,
  });
  return stdout.trim();
}

describe('git over HTTP', () => {
  let root: string;
  let server: Server;
  let base: string;
  let upstreamHead: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-git-http-'));
    const projects = join(root, 'projects');
    // An upstream repository and a fork of it, both bare, as the world lays them out.
    const seed = join(root, 'seed');
    await mkdir(seed);
    await git(seed, 'init', '-q', '-b', 'main');
    await writeFile(join(seed, 'README.md'), '# widgets\n');
    await git(seed, 'add', '.');
    await git(seed, 'commit', '-q', '-m', 'first');
    upstreamHead = await git(seed, 'rev-parse', 'HEAD');
    await mkdir(join(projects, 'acme'), { recursive: true });
    await mkdir(join(projects, 'solver'), { recursive: true });
    await git(root, 'clone', '-q', '--bare', seed, join(projects, 'acme', 'widgets.git'));
    await git(root, 'clone', '-q', '--bare', seed, join(projects, 'solver', 'widgets.git'));

    server = createServer((request, response) => {
      const served = serveGit({ projectRoot: projects, canPush: (owner) => owner === 'solver' }, request, response);
      if (!served) response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => server?.close(done));
    await rm(root, { recursive: true, force: true });
  });

  it('clones a repository with its history', async () => {
    const clone = join(root, 'clone');
    await git(root, 'clone', '-q', `${base}/acme/widgets.git`, clone);
    expect(await git(clone, 'rev-parse', 'HEAD')).toBe(upstreamHead);
    expect(await git(clone, 'log', '--format=%s')).toBe('first');
  });

  it('pushes a branch to a fork, then fetches it back', async () => {
    const work = join(root, 'work');
    await git(root, 'clone', '-q', `${base}/solver/widgets.git`, work);
    await git(work, 'checkout', '-q', '-b', 'fix-1');
    await writeFile(join(work, 'fix.txt'), 'fixed\n');
    await git(work, 'add', '.');
    await git(work, 'commit', '-q', '-m', 'fix');
    const fixHead = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'push', '-q', 'origin', 'fix-1');
    const other = join(root, 'other');
    await git(root, 'clone', '-q', '--branch', 'fix-1', `${base}/solver/widgets.git`, other);
    expect(await git(other, 'rev-parse', 'HEAD')).toBe(fixHead);
  });

  it('leaves paths that are not git smart-HTTP paths to the rest of the server', async () => {
    expect((await fetch(`${base}/repos/acme/widgets`)).status).toBe(404);
    expect((await fetch(`${base}/acme/widgets.git/objects/info/packs`)).status).toBe(404);
  });

  it('refuses a push to upstream without write access, and an unknown repository', async () => {
    const work = join(root, 'denied');
    await git(root, 'clone', '-q', `${base}/acme/widgets.git`, work);
    await git(work, 'checkout', '-q', '-b', 'sneaky');
    await expect(git(work, 'push', '-q', 'origin', 'sneaky')).rejects.toThrow(/403/);
    await expect(git(root, 'clone', '-q', `${base}/acme/missing.git`, join(root, 'missing'))).rejects.toThrow(
      /not found|404/i,
    );
  });
});
