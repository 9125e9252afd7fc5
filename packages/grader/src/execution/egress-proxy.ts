// Owns the only way out of a command that runs without a network: an HTTP proxy abp runs on the host, on a Unix socket
// bound into the command's namespace (egress-relay.ts is its end inside), that opens connections only to the hosts of
// an allow-list and records every attempt, allowed or refused. CONNECT tunnels carry TLS end to end, so the proxy sees
// host names, never content. Where the host itself reaches the world through a proxy, connections are chained to it.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { rm } from 'node:fs/promises';

/** A host name (`pypi.org`) or every name under a domain (`*.pythonhosted.org`), on the listed ports. */
export interface EgressRule {
  readonly host: string;
  readonly ports: readonly number[];
}

export interface EgressAttempt {
  readonly host: string;
  readonly port: number;
  readonly allowed: boolean;
  /** Why a connection failed or was refused; null for a connection that was made. */
  readonly error: string | null;
}

export interface EgressProxy {
  /** Where the proxy listens: a Unix socket path, or 127.0.0.1:<port>. */
  readonly address: string;
  attempts(): readonly EgressAttempt[];
  close(): Promise<void>;
}

export interface EgressOptions {
  readonly listen: { path: string } | { port: number };
  readonly allow: readonly EgressRule[];
  /** The proxy the host reaches the world through, for a host that is not in its NO_PROXY list. */
  readonly upstream?: ((host: string) => URL | null) | undefined;
  /**
   * Names the proxy resolves itself, to an address on the host (`host.abp.internal` → `127.0.0.1`): how a command
   * without a network reaches a service on the host's loopback, which its own loopback is not. Never chained upstream.
   */
  readonly hosts?: Readonly<Record<string, string>>;
  /** Tunnels open at once; one more is answered 503 at once rather than queued. */
  readonly maxConnections?: number;
  /** A tunnel silent for this long is closed. */
  readonly idleMs?: number;
}

const MAX_RECORDED = 10_000;

export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

export function egressAllows(rules: readonly EgressRule[], host: string, port: number): boolean {
  const name = normalizeHost(host);
  return rules.some((rule) => {
    const pattern = normalizeHost(rule.host);
    const matches = pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
    return matches && rule.ports.includes(port);
  });
}

/** `host:port` of a CONNECT request or an absolute URL's authority; null when it is not one. */
function target(authority: string, defaultPort: number): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:/@\s[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  if (match === null) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (!(port > 0 && port < 65536)) return null;
  return { host: normalizeHost(match[1] as string), port };
}

function proxyAuthorization(upstream: URL): Record<string, string> {
  if (upstream.username === '') return {};
  const credentials = `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

const CONNECT_TIMEOUT_MS = 30_000;

/**
 * A TCP connection to host:port, directly or through the host's own proxy (a CONNECT of its own), given up after 30 s.
 * `cancel` ends an attempt still under way (its client left, or the proxy closes).
 */
function open(host: string, port: number, upstream: URL | null): { socket: Promise<Socket>; cancel(): void } {
  let pending: Socket | null = null;
  let cancelled = false;
  const socket = new Promise<Socket>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending?.destroy();
      reject(Object.assign(new Error('the connection timed out'), { code: 'ETIMEDOUT' }));
    }, CONNECT_TIMEOUT_MS);
    const done = (error: Error | null, connected?: Socket) => {
      clearTimeout(timer);
      if (error !== null) reject(error);
      else if (cancelled) {
        connected?.destroy();
        reject(Object.assign(new Error('the client left'), { code: 'ECANCELED' }));
      } else resolve(connected as Socket);
    };
    if (upstream === null) {
      const direct = connect({ host, port });
      pending = direct;
      direct.once('connect', () => done(null, direct));
      direct.once('error', (error) => done(error));
      return;
    }
    const request = httpRequest({
      host: upstream.hostname,
      port: Number(upstream.port || 80),
      method: 'CONNECT',
      path: `${host}:${port}`,
      headers: { host: `${host}:${port}`, ...proxyAuthorization(upstream) },
    });
    request.once('socket', (raw: Socket) => {
      pending = raw;
    });
    request.once('connect', (response, tunnel: Socket, head: Buffer) => {
      if (response.statusCode !== 200) {
        tunnel.destroy();
        done(new Error(`the host's proxy ${upstream.host} answered ${response.statusCode}`));
        return;
      }
      if (head.length > 0) tunnel.unshift(head);
      done(null, tunnel);
    });
    request.once('error', (error) => done(error));
    request.end();
  });
  return {
    socket,
    cancel: () => {
      cancelled = true;
      pending?.destroy();
    },
  };
}

export async function startEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const recorded: EgressAttempt[] = [];
  const record = (attempt: EgressAttempt) => {
    if (recorded.length < MAX_RECORDED) recorded.push(attempt);
  };
  const upstreamOf = options.upstream ?? (() => null);
  const local = new Map(Object.entries(options.hosts ?? {}).map(([name, address]) => [normalizeHost(name), address]));
  // Where a connection to `host` goes: a local name's address, directly, or the name itself, maybe through upstream.
  const route = (host: string): { address: string; upstream: URL | null } => {
    const address = local.get(host);
    return address === undefined ? { address: host, upstream: upstreamOf(host) } : { address, upstream: null };
  };
  const idleMs = options.idleMs ?? 120_000;
  const sockets = new Set<Socket>();
  const maxConnections = options.maxConnections ?? 64;
  let active = 0;
  const pendingAttempts = new Set<ReturnType<typeof open>>();

  const refuse = (socket: Socket, status: number, reason: string) => {
    socket.end(
      `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : status === 503 ? 'Service Unavailable' : 'Bad Gateway'}\r\ncontent-type: text/plain\r\nconnection: close\r\nx-abp-egress: refused\r\n\r\nabp egress: ${reason}\n`,
    );
  };

  const server = createServer({ maxHeaderSize: 16 * 1024 });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setTimeout(idleMs, () => socket.destroy());
  });

  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    const wanted = target(request.url ?? '', 443);
    if (wanted === null) return refuse(client, 400, `CONNECT ${JSON.stringify(request.url)} names no host:port`);
    if (!egressAllows(options.allow, wanted.host, wanted.port)) {
      record({ ...wanted, allowed: false, error: 'not in the allow-list' });
      return refuse(client, 403, `${wanted.host}:${wanted.port} is not a host this command may reach`);
    }
    if (active >= maxConnections)
      return refuse(client, 503, `${maxConnections} connections are already open; retry when one closes`);
    active += 1;
    let released = false;
    const release = () => {
      if (!released) active -= 1;
      released = true;
    };
    const way = route(wanted.host);
    const attempt = open(way.address, wanted.port, way.upstream);
    pendingAttempts.add(attempt);
    client.once('close', () => {
      release();
      attempt.cancel();
    });
    attempt.socket
      .finally(() => pendingAttempts.delete(attempt))
      .then(
        (remote) => {
          record({ ...wanted, allowed: true, error: null });
          if (client.destroyed) {
            remote.destroy();
            return;
          }
          sockets.add(remote);
          remote.setTimeout(idleMs, () => remote.destroy());
          const close = () => {
            client.destroy();
            remote.destroy();
          };
          remote.once('close', () => {
            sockets.delete(remote);
            close();
          });
          remote.on('error', close);
          client.once('close', close);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) remote.write(head);
          client.pipe(remote);
          remote.pipe(client);
        },
        (error: Error) => {
          record({ ...wanted, allowed: true, error: (error as NodeJS.ErrnoException).code ?? error.message });
          refuse(
            client,
            502,
            `${wanted.host}:${wanted.port} could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message})`,
          );
        },
      );
  });

  // Plain HTTP in absolute form (`GET http://host/path`): forwarded as one request, the answer streamed back.
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let url: URL | null = null;
    try {
      url = new URL(request.url ?? '');
    } catch {
      url = null;
    }
    const wanted = url !== null && url.protocol === 'http:' ? target(url.host, 80) : null;
    if (url === null || wanted === null) {
      response.writeHead(400, { 'content-type': 'text/plain', 'x-abp-egress': 'refused' });
      response.end('abp egress: only CONNECT and absolute http:// requests are proxied\n');
      return;
    }
    if (!egressAllows(options.allow, wanted.host, wanted.port)) {
      record({ ...wanted, allowed: false, error: 'not in the allow-list' });
      response.writeHead(403, { 'content-type': 'text/plain', 'x-abp-egress': 'refused' });
      response.end(`abp egress: ${wanted.host}:${wanted.port} is not a host this command may reach\n`);
      return;
    }
    const { address: destination, upstream } = route(wanted.host);
    // The Host the request names is the one it was allowed for: no other virtual host behind the same address.
    const headers: Record<string, string | string[] | undefined> = { ...request.headers, host: url.host };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    if (upstream !== null) Object.assign(headers, proxyAuthorization(upstream));
    const forwarded = httpRequest(
      upstream === null
        ? {
            host: destination,
            port: wanted.port,
            method: request.method,
            path: `${url.pathname}${url.search}`,
            headers,
          }
        : {
            host: upstream.hostname,
            port: Number(upstream.port || 80),
            method: request.method,
            path: url.href,
            headers,
          },
      (answer) => {
        record({ ...wanted, allowed: true, error: null });
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', (error: NodeJS.ErrnoException) => {
      record({ ...wanted, allowed: true, error: error.code ?? error.message });
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain', 'x-abp-egress': 'refused' });
      response.end(`abp egress: ${wanted.host}:${wanted.port} could not be reached (${error.code ?? error.message})\n`);
    });
    request.pipe(forwarded);
  });

  const listen = options.listen;
  if ('path' in listen) await rm(listen.path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, resolve);
    else server.listen(listen.port, '127.0.0.1', resolve);
  });
  const bound = server.address();
  const address =
    'path' in listen ? listen.path : `127.0.0.1:${typeof bound === 'object' && bound !== null ? bound.port : 0}`;
  return {
    address,
    attempts: () => [...recorded],
    close: async () => {
      for (const attempt of pendingAttempts) attempt.cancel();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if ('path' in listen) await rm(listen.path, { force: true });
    },
  };
}

/** The host's own proxy for `host`, from HTTPS_PROXY / HTTP_PROXY and NO_PROXY as curl reads them. */
export function hostUpstream(hostEnv: Readonly<Record<string, string | undefined>>): (host: string) => URL | null {
  const value =
    hostEnv['HTTPS_PROXY'] ?? hostEnv['https_proxy'] ?? hostEnv['HTTP_PROXY'] ?? hostEnv['http_proxy'] ?? '';
  let proxy: URL | null = null;
  try {
    proxy = value === '' ? null : new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    proxy = null;
  }
  const bypass = (hostEnv['NO_PROXY'] ?? hostEnv['no_proxy'] ?? '')
    .split(',')
    .map((entry) => normalizeHost(entry.replace(/:\d+$/, '')))
    .filter(Boolean);
  return (host) => {
    if (proxy === null) return null;
    const name = normalizeHost(host);
    const skipped = bypass.some(
      (entry) =>
        entry === '*' ||
        name === entry.replace(/^\./, '') ||
        name.endsWith(entry.startsWith('.') ? entry : `.${entry}`),
    );
    return skipped ? null : proxy;
  };
}

/** Counts per host and outcome, for a build log or a receipt: `pypi.org:443 ×3`, `refused 127.0.0.1:8080 ×1`. */
/** The attempts grouped by host, port, outcome and error, each with how many times it happened, in the order first seen. */
export function groupAttempts(attempts: readonly EgressAttempt[]): Array<EgressAttempt & { count: number }> {
  const groups = new Map<string, EgressAttempt & { count: number }>();
  for (const attempt of attempts) {
    const key = JSON.stringify([attempt.host, attempt.port, attempt.allowed, attempt.error]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { ...attempt, count: 1 });
    else group.count += 1;
  }
  return [...groups.values()];
}

export function summarizeAttempts(attempts: readonly EgressAttempt[]): string[] {
  return groupAttempts(attempts)
    .map(
      (group) =>
        `${group.allowed ? (group.error === null ? '' : `failed (${group.error}) `) : 'refused '}${group.host}:${group.port} ×${group.count}`,
    )
    .sort();
}
