// Environments built for real from the registries (Debian through mmdebstrap, Node from npm, Go through the module
// proxy, packages through pip, npm and go), then run offline with bubblewrap: the toolchain inside is the one asked
// for, not the host's; nothing reaches the network; the build is cached by its inputs; the OCI archive reads in skopeo.
import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvironment, fileDigest, type EnvironmentRequest } from '../../src/environments/build.js';
import { CHECKOUT, environmentVariables } from '../../src/environments/runtime.js';
import { EnvironmentStore } from '../../src/environments/store.js';
import { runBounded } from '../../src/execution/bounded-command.js';
import { openEngineEgress } from '../../src/run/engine-egress.js';
import { adaptersSchema } from '@abp/protocol/schemas/abp-adapters';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

const execFileAsync = promisify(execFile);
const store = new EnvironmentStore(sharedEnvironmentStore);
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'abp-environments-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

async function request(
  dir: string,
  fields: Omit<EnvironmentRequest, 'dependencyFiles'>,
  dependencyFiles: string[],
): Promise<EnvironmentRequest> {
  const digests: Record<string, string> = {};
  for (const path of dependencyFiles) digests[path] = fileDigest(await readFile(join(dir, path)));
  return { ...fields, dependencyFiles: digests };
}

/**
 * Runs `argv` in the environment with `checkout` at /work/repo and no network, as the freeze and the grader do; with
 * `egress`, an egress proxy's socket as its one way out, as a sandboxed engine's in its task's environment.
 */
async function runIn(digest: string, checkout: string, argv: string[], egress: string | null = null) {
  const image = await store.readImage(digest);
  const rootfs = await store.rootfs(digest);
  const home = join(work, `home-${Math.random()}`);
  await mkdir(home);
  return runBounded({
    argv,
    cwd: CHECKOUT,
    env: environmentVariables(image.config, { HOME: '/work/home', TMPDIR: '/tmp' }),
    timeoutMs: 120_000,
    maxOutputBytes: 1024 * 1024,
    environment: {
      rootfs,
      config: image.config,
      checkout,
      mounts: [{ source: home, target: '/work/home', writable: true }],
      network: false,
      egress,
    },
  });
}

/** The store's index entries that name `digest`: what a build of the same inputs finds (builders of every format). */
async function indexEntriesOf(digest: string): Promise<string[]> {
  const keys = join(store.root, 'keys');
  const names = await readdir(keys);
  const texts = await Promise.all(names.map((name) => readFile(join(keys, name), 'utf8')));
  const found = names.filter((_, index) => texts[index]?.includes(digest)).map((name) => join(keys, name));
  if (found.length === 0) throw new Error(`no index entry names ${digest}`);
  return found;
}

/** Builds again with the cache's entries for these inputs gone: a build from the registries, not a reuse. */
async function rebuiltFromScratch<T>(digest: string, build: () => Promise<T>): Promise<T> {
  for (const entry of await indexEntriesOf(digest)) await rm(entry);
  return build();
}

/** The Python environment of a repository whose only dependency file is pyproject.toml. */
async function pythonBuild(dir: string) {
  return buildEnvironment({
    store,
    checkout: dir,
    request: await request(
      dir,
      { ecosystem: 'python', toolchain: {}, install: ['pip install -e .'], runner: 'pytest' },
      ['pyproject.toml'],
    ),
  });
}

async function copyOf(dir: string, name: string): Promise<string> {
  const target = join(work, name);
  await execFileAsync('cp', ['-a', dir, target]);
  return target;
}

describe('a Python environment', () => {
  let dir: string;
  let digest: string;
  const pyproject = `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = ["six==1.16.0"]
`;

  beforeAll(async () => {
    dir = await repo('py', {
      'pyproject.toml': pyproject,
      'src/calc/__init__.py': 'import six\n\ndef which():\n    return six.__name__\n',
      'tests/test_calc.py': 'from calc import which\n\ndef test_which():\n    assert which() == "six"\n',
    });
    const build = await pythonBuild(dir);
    digest = build.digest;
    expect(build.toolchains['python']).toMatch(/^3\.11\./);
    expect(build.toolchains['pytest']).toMatch(/^\d+\./);
  }, 900_000);

  it('runs pytest from the environment, with the dependency pip installed there, on a fresh checkout', async () => {
    const checkout = await copyOf(dir, 'py-checkout');
    const result = await runIn(digest, checkout, ['python', '-m', 'pytest', '-q', '-p', 'no:cacheprovider']);
    expect(result.stdout.toString()).toContain('1 passed');
    expect(result.exitCode).toBe(0);
    const where = await runIn(digest, checkout, [
      'python',
      '-c',
      'import pytest, six; print(pytest.__file__); print(six.__file__)',
    ]);
    expect(where.stdout.toString()).toMatch(
      /^\/opt\/abp\/env\/venv\/lib\/python3\.11\/site-packages\/pytest\/__init__\.py\n\/opt\/abp\/env\/venv\//,
    );
  });

  it('sees none of the host: not its files, not its programs, not its network', async () => {
    const server: Server = createServer((socket) => socket.end('host\n'));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const checkout = await copyOf(dir, 'py-offline');
      const probe = `import socket, os
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=3).recv(5)
    print("reached")
except OSError as error:
    print("refused", type(error).__name__)
print("host-node" if os.path.exists("${process.execPath}") else "no-host-node")
print("host-repo" if os.path.exists("${dir}") else "no-host-repo")
`;
      const result = await runIn(digest, checkout, ['python', '-c', probe]);
      expect(result.stdout.toString().split('\n').slice(0, 3)).toEqual([
        'refused ConnectionRefusedError',
        'no-host-node',
        'no-host-repo',
      ]);
      const fromHost = await execFileAsync('python3', ['-c', probe]);
      expect(fromHost.stdout.split('\n')[0]).toBe('reached');
    } finally {
      server.close();
    }
  });

  it("gives an engine run in it the hosts of its adapter's allow-list, through its own proxy, and nothing else", async () => {
    const hits: number[] = [];
    const listen = async () => {
      const server = createHttpServer((_request, response) => {
        hits.push((server.address() as { port: number }).port);
        response.end('model');
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      return server;
    };
    const [provider, other] = await Promise.all([listen(), listen()]);
    const portOf = (server: HttpServer) => (server.address() as { port: number }).port;
    // The grader's own services (the stand-in, abp serve) are host.abp.internal to a sandboxed engine.
    const [adapter] = adaptersSchema.parse({
      schema: 'abp-adapters/v1',
      executionPolicy: 'sandboxed',
      adapters: [
        {
          engine: 'in-environment',
          command: ['python'],
          egress: [{ host: 'host.abp.internal', ports: [portOf(provider)] }],
          metadata: {},
          preflight: { prompt: 'p', sentinel: 'ok' },
        },
      ],
    }).adapters;
    const egress = adapter === undefined ? null : await openEngineEgress({ adapter, policy: 'sandboxed', hostEnv: {} });
    try {
      const checkout = await copyOf(dir, 'py-engine-egress');
      // urllib goes through HTTP_PROXY, which the relay in front of the command sets, as an engine's client does.
      const probe = `import urllib.request
for port in (${portOf(provider)}, ${portOf(other)}):
    try:
        print(urllib.request.urlopen(f"http://host.abp.internal:{port}/v1", timeout=30).read().decode())
    except Exception as error:
        print("refused", getattr(error, "code", type(error).__name__))
`;
      const result = await runIn(digest, checkout, ['python', '-c', probe], egress?.socket ?? null);
      expect(result.stdout.toString().split('\n').slice(0, 2)).toEqual(['model', 'refused 403']);
      expect(hits).toEqual([portOf(provider)]);
      const record = await egress?.close();
      expect(record).toEqual({
        allow: [`host.abp.internal:${portOf(provider)}`],
        attempts: [
          { host: 'host.abp.internal', port: portOf(provider), allowed: true, error: null, count: 1 },
          { host: 'host.abp.internal', port: portOf(other), allowed: false, error: 'not in the allow-list', count: 1 },
        ].sort((a, b) => a.port - b.port),
      });
    } finally {
      await egress?.close();
      for (const server of [provider, other]) {
        server.closeAllConnections();
        server.close();
      }
    }
  }, 180_000);

  it('is reused for the same dependency files, and rebuilt when one changes', async () => {
    const again = await pythonBuild(dir);
    expect(again).toMatchObject({ digest, cached: true });
    const changed = await repo('py-changed', {
      'pyproject.toml': pyproject.replace('six==1.16.0', 'six==1.17.0'),
      'src/calc/__init__.py': 'import six\n',
    });
    const other = await pythonBuild(changed);
    expect(other.digest).not.toBe(digest);
    const [first, second] = await Promise.all([store.readImage(digest), store.readImage(other.digest)]);
    // The base (Debian with Python) is shared; only the install's layer differs.
    expect(second.manifest.layers.slice(0, -1)).toEqual(first.manifest.layers.slice(0, -1));
    expect(second.manifest.layers.at(-1)?.digest).not.toBe(first.manifest.layers.at(-1)?.digest);

    // A damaged cache index that names the other image for these inputs is a miss, not a match: the build runs again
    // and comes out as the same image, byte for byte.
    const entries = await indexEntriesOf(digest);
    for (const entry of entries) await writeFile(entry, JSON.stringify({ digest: other.digest }));
    const rebuilt = await pythonBuild(dir);
    expect(rebuilt).toMatchObject({ digest, cached: false });
    expect((await indexEntriesOf(digest)).length).toBeGreaterThan(0);
  }, 900_000);

  it('exports an OCI archive that skopeo reads, with the layers and the labels it was built with', async () => {
    const archive = join(work, 'python-env.tar');
    await store.exportArchive(digest, archive, 'abp-env/calc');
    const { stdout } = await execFileAsync('skopeo', ['inspect', `oci-archive:${archive}`]);
    const inspected = JSON.parse(stdout) as {
      Digest: string;
      Layers: string[];
      Labels: Record<string, string>;
      Os: string;
    };
    const image = await store.readImage(digest);
    expect(inspected.Digest).toBe(digest);
    expect(inspected.Layers).toEqual(image.manifest.layers.map((layer) => layer.digest));
    expect(inspected.Os).toBe('linux');
    expect(inspected.Labels['org.abp.install']).toBe('pip install -e .');
  });

  it('lets the install step reach the registries through the egress proxy, and nothing else', async () => {
    let reached = 0;
    const server: Server = createServer((socket) => {
      reached += 1;
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhost\n');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    // The install step tries the host's port directly and through the proxy, a host that is no registry, and PyPI. The
    // port is in the probe, a dependency file: every run's build is a new one, never the cache's.
    const probe = `import json, os, socket
from urllib.parse import urlsplit
proxy = urlsplit(os.environ["HTTPS_PROXY"])
def ask(request):
    with socket.create_connection((proxy.hostname, proxy.port), timeout=60) as s:
        s.sendall(request.encode())
        return s.recv(200).decode().split("\\r\\n")[0]
seen = {}
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=5).close()
    seen["direct"] = "connected"
except OSError as error:
    seen["direct"] = type(error).__name__
seen["proxiedHost"] = ask("GET http://127.0.0.1:${port}/ HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\n\\r\\n")
seen["otherHost"] = ask("CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n\\r\\n")
seen["registry"] = ask("CONNECT pypi.org:443 HTTP/1.1\\r\\nHost: pypi.org:443\\r\\n\\r\\n")
print("PROBE " + json.dumps(seen, sort_keys=True))
`;
    try {
      const dir = await repo('py-egress', { 'pyproject.toml': pyproject, 'net_probe.py': probe });
      const build = await buildEnvironment({
        store,
        checkout: dir,
        request: await request(
          dir,
          { ecosystem: 'python', toolchain: {}, install: ['python3 net_probe.py'], runner: 'pytest' },
          ['pyproject.toml', 'net_probe.py'],
        ),
      });
      const log = (await store.readBlob(build.log)).toString('utf8');
      const seen = JSON.parse(/^PROBE (.*)$/m.exec(log)?.[1] ?? '{}') as Record<string, string>;
      expect(seen).toEqual({
        direct: 'ConnectionRefusedError',
        otherHost: 'HTTP/1.1 403 Forbidden',
        proxiedHost: 'HTTP/1.1 403 Forbidden',
        registry: 'HTTP/1.1 200 Connection Established',
      });
      expect(reached).toBe(0);
      // Every attempt is in the build log, refused or not; pytest then came from PyPI the same way.
      expect(log).toContain(`# connections: pypi.org:443 ×1, refused 127.0.0.1:${port} ×1, refused example.com:443 ×1`);
      expect(log).toMatch(/\$ python -m pip install pytest\n[\s\S]*# connections: [^\n]*pypi\.org:443/);
    } finally {
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  }, 900_000);

  it('fails the build with environment-build-failed and the log tail when the install needs what no registry has', async () => {
    const broken = await repo('py-broken', {
      'pyproject.toml': pyproject.replace('six==1.16.0', 'abp-no-such-package-anywhere==9.9.9'),
      'src/calc/__init__.py': '',
    });
    const failure = await pythonBuild(broken).then(
      () => null,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(failure?.code).toBe('environment-build-failed');
    expect(failure?.message).toContain('abp-no-such-package-anywhere');
  }, 900_000);
});

describe('Node and Go environments carry the toolchain the repository names, not the host’s', () => {
  it('Node 22 from npm with vitest and another devDependency through npm ci', async () => {
    const dir = await repo('js', {
      '.nvmrc': '22\n',
      'package.json': JSON.stringify({
        name: 'js-env',
        version: '1.0.0',
        private: true,
        type: 'module',
        scripts: { test: 'vitest run' },
        devDependencies: { vitest: '3.2.4', 'is-number': '7.0.0' },
      }),
      'index.js': 'import isNumber from "is-number";\nexport const double = (x) => (isNumber(x) ? x * 2 : NaN);\n',
      'test/double.test.js':
        'import { expect, test } from "vitest";\nimport { double } from "../index.js";\ntest("doubles", () => expect(double(2)).toBe(4));\n',
    });
    await execFileAsync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir });
    const nodeBuild = async () =>
      buildEnvironment({
        store,
        checkout: dir,
        request: await request(
          dir,
          { ecosystem: 'node', toolchain: { node: '22' }, install: ['npm ci'], runner: 'vitest' },
          ['package.json', 'package-lock.json', '.nvmrc'],
        ),
      });
    const build = await nodeBuild();
    expect(build.toolchains['node']).toMatch(/^22\./);
    // The same inputs installed again from the registry give the same image, byte for byte.
    expect(await rebuiltFromScratch(build.digest, nodeBuild)).toMatchObject({ digest: build.digest, cached: false });
    expect(process.version).not.toMatch(/^v22\./);
    const checkout = await copyOf(dir, 'js-checkout');
    const version = await runIn(build.digest, checkout, ['node', '--version']);
    expect(version.stdout.toString().trim()).toBe(`v${build.toolchains['node'] ?? ''}`);
    const tests = await runIn(build.digest, checkout, [
      'npx',
      'vitest',
      'run',
      '--reporter=junit',
      '--outputFile=/work/home/report.xml',
    ]);
    expect(tests.exitCode, tests.stderr.toString()).toBe(0);
  }, 900_000);

  it('Go 1.24.5 through the module proxy, with a module dependency in the environment’s module cache', async () => {
    const dir = await repo('go', {
      'go.mod': 'module example.com/goenv\n\ngo 1.24.5\n\nrequire github.com/google/uuid v1.6.0\n',
      'go.sum':
        'github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\ngithub.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n',
      'lib.go':
        'package goenv\n\nimport "github.com/google/uuid"\n\nfunc Valid(s string) bool { _, err := uuid.Parse(s); return err == nil }\n',
      'lib_test.go':
        'package goenv\n\nimport "testing"\n\nfunc TestValid(t *testing.T) {\n\tif !Valid("6ba7b810-9dad-11d1-80b4-00c04fd430c8") {\n\t\tt.Fatal("want valid")\n\t}\n}\n',
    });
    const goBuild = async () =>
      buildEnvironment({
        store,
        checkout: dir,
        request: await request(
          dir,
          { ecosystem: 'go', toolchain: { go: '1.24.5' }, install: ['go mod download'], runner: 'go-test' },
          ['go.mod', 'go.sum'],
        ),
      });
    const build = await goBuild();
    expect(build.toolchains['go']).toBe('1.24.5');
    expect(await rebuiltFromScratch(build.digest, goBuild)).toMatchObject({ digest: build.digest, cached: false });
    const host = await execFileAsync('go', ['env', 'GOVERSION']);
    expect(host.stdout.trim()).not.toBe('go1.24.5');
    const checkout = await copyOf(dir, 'go-checkout');
    const tests = await runIn(build.digest, checkout, [
      'sh',
      '-c',
      'GOCACHE=/work/home/go-build GOPROXY=off go test -count=1 ./...',
    ]);
    expect(tests.stdout.toString(), tests.stderr.toString()).toMatch(/^ok\s+example\.com\/goenv/m);
  }, 900_000);
});
