// Git's smart HTTP protocol for the simulator's repositories, through `git http-backend` (CGI):
// clone and fetch from every repository, push where the world allows it (forks). The pipeline
// clones from here exactly as it would from github.com.
// http-backend is a CGI program answering one request at a time, fed the request body as it arrives and streaming its
// answer back: the one spawn outside abp's runners (which run a program to completion and return its output).
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gitSync } from '@abp/grader/execution';

export interface GitHttpOptions {
  /** Folder holding `<owner>/<name>.git` bare repositories. */
  projectRoot: string;
  /** Whether a push to this repository is allowed (GitHub: your own forks, not upstream). */
  canPush: (owner: string, name: string) => boolean;
  /** Called after a push was received, so the world can move the heads of pull requests from it. */
  onPush?: (owner: string, name: string) => void;
}

/** Where git keeps git-http-backend, asked once, on the first request. */
let backend: string | undefined;
const backendPath = (): string =>
  (backend ??= join(gitSync(['--exec-path'], { cwd: '/' }).stdout.toString('utf8').trim(), 'git-http-backend'));
// As on GitHub, the clone URL is the repository's web URL plus `.git`; only git's own paths match.
const repoPath = /^\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)\.git(\/(?:info\/refs|git-upload-pack|git-receive-pack))$/;

/** Serves one git request, or answers false when the path is not one of git's smart-HTTP paths. */
export function serveGit(options: GitHttpOptions, request: IncomingMessage, response: ServerResponse): boolean {
  const url = new URL(request.url ?? '/', 'http://simulator');
  const match = repoPath.exec(url.pathname);
  if (!match) return false;
  const [, owner = '', name = '', rest = ''] = match;
  const pushing = rest === '/git-receive-pack' || url.searchParams.get('service') === 'git-receive-pack';
  if (pushing && !options.canPush(owner, name)) {
    // GitHub answers 403 to a push without write access.
    response.writeHead(403, { 'content-type': 'text/plain' }).end(`Permission to ${owner}/${name}.git denied.\n`);
    return true;
  }
  const child = spawn(backendPath(), [], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: options.projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${owner}/${name}.git${rest}`,
      REQUEST_METHOD: request.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
      ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
      ...(typeof request.headers['git-protocol'] === 'string' ? { GIT_PROTOCOL: request.headers['git-protocol'] } : {}),
      // http-backend refuses receive-pack for anonymous users; access was decided above.
      REMOTE_USER: pushing ? owner : '',
      REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  request.pipe(child.stdin);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  relayCgi(child.stdout, response);
  child.once('error', (error) => {
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(`git http-backend failed: ${error.message}\n`);
  });
  child.once('close', (code) => {
    if (code !== 0 && !response.headersSent) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`git http-backend exited ${code}: ${stderr}`);
    }
    // The receive-pack POST is the push itself; the GET of info/refs before it only advertises refs.
    if (code === 0 && rest === '/git-receive-pack') options.onPush?.(owner, name);
  });
  return true;
}

/** Turns CGI output (header lines, a blank line, the body) into an HTTP response, streaming the body. */
function relayCgi(output: NodeJS.ReadableStream, response: ServerResponse): void {
  let head = Buffer.alloc(0);
  let headersDone = false;
  output.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
      else headers[key] = value;
    }
    response.writeHead(status, headers);
    const body = head.subarray(end + 4);
    if (body.length > 0) response.write(body);
  });
  output.on('end', () => response.end());
}
