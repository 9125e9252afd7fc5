// The egress proxy on real sockets: CONNECT tunnels and absolute-form HTTP to allowed hosts only, every attempt
// recorded, chaining through the host's own proxy (a second egress proxy on TCP plays that part), and bad requests
// answered without a connection.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  egressAllows,
  hostUpstream,
  startEgressProxy,
  summarizeAttempts,
  type EgressProxy,
} from '../../src/execution/egress-proxy.js';

let dir: string;
let origin: HttpServer;
let originPort: number;
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-egress-test-'));
  origin = createHttpServer((request, response) => response.end(`origin saw ${request.method} ${request.url}`));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as { port: number }).port;
});
afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function proxy(options: Parameters<typeof startEgressProxy>[0]): Promise<EgressProxy> {
  const started = await startEgressProxy(options);
  proxies.push(started);
  return started;
}

/** Sends `text` to the proxy at `address` and returns everything it answers until it closes or `until` matches. */
function exchange(address: string, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = address.startsWith('/')
      ? connect(address)
      : connect(Number(address.split(':')[1]), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (until?.test(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(text);
  });
}

const originRule = () => ({ host: '127.0.0.1', ports: [originPort] });

describe('the egress proxy', () => {
  it('tunnels CONNECT to an allowed host, refuses any other with 403, and records both', async () => {
    const egress = await proxy({ listen: { path: join(dir, 'a.sock') }, allow: [originRule()] });
    const tunnelled = await exchange(
      egress.address,
      `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nHost: x\r\n\r\nGET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(tunnelled).toContain('origin saw GET /through');
    const refused = await exchange(egress.address, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(refused).toContain('example.com:443 is not a host this command may reach');
    // Another port of an allowed host is another host.
    const otherPort = await exchange(egress.address, `CONNECT 127.0.0.1:${originPort + 1} HTTP/1.1\r\n\r\n`);
    expect(otherPort).toMatch(/^HTTP\/1\.1 403/);
    expect(egress.attempts()).toEqual([
      { host: '127.0.0.1', port: originPort, allowed: true, error: null },
      { host: 'example.com', port: 443, allowed: false, error: 'not in the allow-list' },
      { host: '127.0.0.1', port: originPort + 1, allowed: false, error: 'not in the allow-list' },
    ]);
    expect(summarizeAttempts(egress.attempts())).toEqual([
      `127.0.0.1:${originPort} ×1`,
      `refused 127.0.0.1:${originPort + 1} ×1`,
      'refused example.com:443 ×1',
    ]);
  });

  it('forwards absolute-form HTTP to an allowed host and refuses the rest, and origin-form requests', async () => {
    const egress = await proxy({ listen: { path: join(dir, 'b.sock') }, allow: [originRule()] });
    const forwarded = await exchange(
      egress.address,
      `GET http://127.0.0.1:${originPort}/simple/six/?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    expect(forwarded).toMatch(/^HTTP\/1\.1 200/);
    expect(forwarded).toContain('origin saw GET /simple/six/?x=1');
    const refused = await exchange(
      egress.address,
      'GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n',
    );
    expect(refused).toMatch(/^HTTP\/1\.1 403/);
    const originForm = await exchange(egress.address, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(originForm).toMatch(/^HTTP\/1\.1 400/);
    const garbage = await exchange(egress.address, 'CONNECT not a target HTTP/1.1\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
  });

  it("resolves the names it is given itself, to the host's loopback, and never chains them upstream", async () => {
    const egress = await proxy({
      listen: { path: join(dir, 'f.sock') },
      allow: [{ host: 'host.abp.internal', ports: [originPort] }],
      hosts: { 'host.abp.internal': '127.0.0.1' },
      // A host proxy that cannot be reached: a local name that went through it would fail.
      upstream: () => new URL('http://127.0.0.1:1'),
    });
    const tunnelled = await exchange(
      egress.address,
      `CONNECT host.abp.internal:${originPort} HTTP/1.1\r\n\r\nGET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(tunnelled).toContain('origin saw GET /tunnelled');
    const forwarded = await exchange(
      egress.address,
      `GET http://host.abp.internal:${originPort}/plain HTTP/1.1\r\nHost: host.abp.internal\r\nConnection: close\r\n\r\n`,
    );
    expect(forwarded).toContain('origin saw GET /plain');
    // The name is allowed on its listed port only, like any other.
    const other = await exchange(egress.address, `CONNECT host.abp.internal:${originPort + 1} HTTP/1.1\r\n\r\n`);
    expect(other).toMatch(/^HTTP\/1\.1 403/);
  });

  it('answers 502 when an allowed host cannot be reached, and records why', async () => {
    const closedPort = originPort === 65535 ? originPort - 1 : originPort + 1;
    const egress = await proxy({
      listen: { path: join(dir, 'c.sock') },
      allow: [{ host: '127.0.0.1', ports: [closedPort] }],
    });
    const answer = await exchange(egress.address, `CONNECT 127.0.0.1:${closedPort} HTTP/1.1\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 502/);
    expect(egress.attempts()).toEqual([{ host: '127.0.0.1', port: closedPort, allowed: true, error: 'ECONNREFUSED' }]);
  });

  it('answers 503 to a tunnel beyond its limit, and opens one again once a tunnel closes', async () => {
    const egress = await proxy({ listen: { path: join(dir, 'e.sock') }, allow: [originRule()], maxConnections: 1 });
    const held = connect(egress.address);
    held.write(`CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\n\r\n`);
    await new Promise((resolve) => held.once('data', resolve));
    const over = await exchange(egress.address, `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\n\r\n`);
    expect(over).toMatch(/^HTTP\/1\.1 503/);
    held.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await exchange(egress.address, `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\n\r\n`, /\r\n\r\n/);
    expect(again).toMatch(/^HTTP\/1\.1 200/);
  });

  it("chains through the host's own proxy where the host has one", async () => {
    const upstream = await proxy({ listen: { port: 0 }, allow: [originRule()] });
    const egress = await proxy({
      listen: { path: join(dir, 'd.sock') },
      allow: [originRule()],
      upstream: hostUpstream({ HTTPS_PROXY: `http://${upstream.address}` }),
    });
    const tunnelled = await exchange(
      egress.address,
      `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\n\r\nGET /chained HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(tunnelled).toContain('origin saw GET /chained');
    expect(upstream.attempts()).toEqual([{ host: '127.0.0.1', port: originPort, allowed: true, error: null }]);
  });
});

describe('the egress relay, the proxy’s end inside a namespace', () => {
  it('points every tool’s proxy setting at itself (npm’s, Yarn’s and Java’s too) and relays to the proxy', async () => {
    const egress = await proxy({ listen: { path: join(dir, 'relay.sock') }, allow: [originRule()] });
    const free = createHttpServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    // The child prints what it was given and fetches from the origin through the relay, as an install would.
    const child = [
      "const http = require('node:http');",
      'const pick = (names) => Object.fromEntries(names.map((name) => [name, process.env[name]]));',
      `http.get({ host: '127.0.0.1', port: ${port}, path: 'http://127.0.0.1:${originPort}/through' }, (response) => {`,
      "  let body = '';",
      "  response.on('data', (chunk) => (body += chunk));",
      "  response.on('end', () => console.log(JSON.stringify({ body, env: pick(['HTTPS_PROXY', 'https_proxy', 'npm_config_https_proxy', 'YARN_HTTPS_PROXY', 'yarn_http_proxy', 'NO_PROXY', 'JAVA_TOOL_OPTIONS']) })));",
      '});',
    ].join('\n');
    const relay = join(import.meta.dirname, '../../dist/execution/egress-relay.js');
    // Not spawnSync: the proxy and the origin answer from this very process.
    const result = await promisify(execFile)(
      process.execPath,
      [relay, egress.address, String(port), '--', process.execPath, '-e', child],
      {
        env: {
          PATH: process.env['PATH'],
          HTTPS_PROXY: 'http://host-proxy.example:3128',
          JAVA_TOOL_OPTIONS: '-Xmx256m',
        },
      },
    );
    const address = `http://127.0.0.1:${port}`;
    expect(JSON.parse(result.stdout)).toEqual({
      // The proxy passes the request on in origin form, as the origin expects it.
      body: 'origin saw GET /through',
      env: {
        HTTPS_PROXY: address,
        https_proxy: address,
        npm_config_https_proxy: address,
        YARN_HTTPS_PROXY: address,
        yarn_http_proxy: address,
        NO_PROXY: 'localhost,127.0.0.1,::1',
        // The JVM's own options kept, its proxy properties after them (the last of a property wins).
        JAVA_TOOL_OPTIONS: `-Xmx256m -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=${port} -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=${port} -Dhttp.nonProxyHosts=localhost|127.0.0.1`,
      },
    });
    expect(egress.attempts()).toEqual([{ host: '127.0.0.1', port: originPort, allowed: true, error: null }]);
  });
});

describe('egress rules', () => {
  it('match a host exactly or every name under a domain, on the listed ports only', () => {
    const rules = [
      { host: 'pypi.org', ports: [443] },
      { host: '*.pythonhosted.org', ports: [443] },
    ];
    expect(egressAllows(rules, 'PyPI.org.', 443)).toBe(true);
    expect(egressAllows(rules, 'files.pythonhosted.org', 443)).toBe(true);
    expect(egressAllows(rules, 'pythonhosted.org', 443)).toBe(false);
    expect(egressAllows(rules, 'evilpypi.org', 443)).toBe(false);
    expect(egressAllows(rules, 'pypi.org', 80)).toBe(false);
  });

  it("take the host's proxy from HTTPS_PROXY, except for what NO_PROXY names", () => {
    const upstream = hostUpstream({ HTTPS_PROXY: 'proxy.corp:3128', NO_PROXY: 'mirror.corp,.internal' });
    expect(upstream('pypi.org')?.host).toBe('proxy.corp:3128');
    expect(upstream('mirror.corp')).toBeNull();
    expect(upstream('npm.internal')).toBeNull();
    expect(hostUpstream({})('pypi.org')).toBeNull();
  });
});
