import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAccess } from '../../src/environments/registry-access.js';
import { environmentArgv, environmentVariables, LABELS } from '../../src/environments/runtime.js';
import type { ImageConfig } from '../../src/environments/store.js';

const config: ImageConfig = {
  architecture: 'amd64',
  os: 'linux',
  config: {
    Env: ['PATH=/opt/abp/node/bin:/usr/bin:/bin', 'LANG=C.UTF-8'],
    WorkingDir: '/work/repo',
    Labels: { [LABELS.checkoutMounts]: '["node_modules"]', [LABELS.scratchMounts]: '["node_modules/.cache"]' },
  },
  rootfs: { type: 'layers', diff_ids: [] },
};

function pairs(args: string[], flag: string): string[][] {
  const found: string[][] = [];
  args.forEach((arg, index) => {
    if (arg === flag) found.push(args.slice(index + 1, index + 3));
  });
  return found;
}

describe('environmentArgv', () => {
  it('runs on the image, read-only, with no network, the checkout at /work/repo and its installed folders bound back', () => {
    const args = environmentArgv(
      {
        rootfs: '/store/rootfs/x',
        config,
        checkout: '/host/lane/repo',
        mounts: [{ source: '/host/lane/reports', target: '/work/reports', writable: true }],
        network: false,
      },
      ['npx', 'vitest', 'run'],
      '/work/repo',
    );
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    expect(pairs(args, '--ro-bind')).toContainEqual(['/store/rootfs/x', '/']);
    expect(pairs(args, '--ro-bind')).toContainEqual([
      '/store/rootfs/x/opt/abp/env/checkout/node_modules',
      '/work/repo/node_modules',
    ]);
    expect(pairs(args, '--bind')).toEqual([
      ['/host/lane/repo', '/work/repo'],
      ['/host/lane/reports', '/work/reports'],
    ]);
    expect(args.slice(args.indexOf('--tmpfs'))).toContain('/work/repo/node_modules/.cache');
    expect(args.slice(-5)).toEqual(['/work/repo', '--', 'npx', 'vitest', 'run']);
    // Nothing of the host's root is bound: only the image.
    expect(pairs(args, '--ro-bind').some(([source, target]) => source === '/' || target === '/host')).toBe(false);
  });

  it("shares the network and the host's resolver only when asked (a trusted-local engine)", () => {
    const args = environmentArgv({ rootfs: '/r', config, checkout: null, mounts: [], network: true }, ['true'], '/');
    expect(args).toContain('--share-net');
    expect(pairs(args, '--ro-bind').map(([, target]) => target)).toContain('/etc/resolv.conf');
    const offline = environmentArgv(
      { rootfs: '/r', config, checkout: null, mounts: [], network: false },
      ['true'],
      '/',
    );
    expect(pairs(offline, '--ro-bind').map(([, target]) => target)).not.toContain('/etc/resolv.conf');
  });

  it('wraps the command in the egress relay, with the proxy socket bound in, when it has an egress proxy', () => {
    const args = environmentArgv(
      { rootfs: '/r', config, checkout: null, mounts: [], network: false, egress: '/tmp/e/proxy.sock' },
      ['pip', 'install', '.'],
      '/work/repo',
    );
    expect(args).not.toContain('--share-net');
    expect(pairs(args, '--bind')).toContainEqual(['/tmp/e/proxy.sock', '/run/abp/egress/proxy.sock']);
    const command = args.slice(args.indexOf('--chdir'));
    expect(command).toEqual([
      '--chdir',
      '/work/repo',
      '--',
      '/run/abp/egress/node',
      '/run/abp/egress/relay.js',
      '/run/abp/egress/proxy.sock',
      '3128',
      '--',
      'pip',
      'install',
      '.',
    ]);
  });

  it('covers what is hidden inside a bound folder after binding it', () => {
    const args = environmentArgv(
      {
        rootfs: '/r',
        config,
        checkout: null,
        mounts: [{ source: '/cfg', target: '/run/abp/engine/cfg' }],
        covered: [
          { target: '/run/abp/engine/cfg/results', folder: true },
          { target: '/run/abp/engine/cfg/secret.txt', folder: false },
        ],
        network: false,
      },
      ['true'],
      '/',
    );
    const bindAt = args.indexOf('/run/abp/engine/cfg');
    expect(args.indexOf('/run/abp/engine/cfg/results')).toBeGreaterThan(bindAt);
    expect(args[args.indexOf('/run/abp/engine/cfg/results') - 1]).toBe('--tmpfs');
    expect(pairs(args, '--ro-bind')).toContainEqual(['/dev/null', '/run/abp/engine/cfg/secret.txt']);
  });

  it('lets the caller override the image variables', () => {
    expect(environmentVariables(config, { HOME: '/work/home', LANG: 'C' })).toEqual({
      PATH: '/opt/abp/node/bin:/usr/bin:/bin',
      LANG: 'C',
      HOME: '/work/home',
    });
  });
});

describe('registryAccess', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'abp-registry-access-'));
    await writeFile(path.join(dir, 'ca.pem'), 'certificate');
    await writeFile(
      path.join(dir, '.npmrc'),
      '//registry.example/:_authToken=secret-token\nregistry=https://npm.mirror.example/\nhttps-proxy=http://proxy.example:3128\n',
    );
    await mkdir(path.join(dir, '.config', 'pip'), { recursive: true });
    await writeFile(
      path.join(dir, '.config', 'pip', 'pip.conf'),
      '[global]\nindex-url = https://pypi.mirror.example:8443/simple\nproxy = http://user:pw@proxy.example:3128\n',
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('carries the host configuration in as binds under /run/abp-registry and variables, and names no secret', () => {
    const access = registryAccess({
      HOME: dir,
      SSL_CERT_FILE: path.join(dir, 'ca.pem'),
      PIP_INDEX_URL: 'https://mirror.example/simple',
      HTTPS_PROXY: 'http://user:pw@proxy.example:3128',
      GOPROXY: 'https://goproxy.example,direct',
      GITHUB_TOKEN: 'ghp_must_not_travel',
      AWS_SECRET_ACCESS_KEY: 'must-not-travel',
    });
    expect(access.env).toMatchObject({
      PIP_INDEX_URL: 'https://mirror.example/simple',
      GOPROXY: 'https://goproxy.example,direct',
      SSL_CERT_FILE: '/run/abp-registry/ca-certificates.crt',
      PIP_CERT: '/run/abp-registry/ca-certificates.crt',
      NODE_EXTRA_CA_CERTS: '/run/abp-registry/ca-certificates.crt',
      NPM_CONFIG_USERCONFIG: '/run/abp-registry/npmrc-user',
    });
    expect(access.env).not.toHaveProperty('GITHUB_TOKEN');
    expect(access.env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(access.mounts).toContainEqual({
      source: path.join(dir, 'ca.pem'),
      target: '/run/abp-registry/ca-certificates.crt',
    });
    expect(access.mounts).toContainEqual({ source: path.join(dir, '.npmrc'), target: '/run/abp-registry/npmrc-user' });
    // Every bind is read-only and outside the folders an install writes into the layer.
    for (const mount of access.mounts) {
      expect(mount.writable).toBeUndefined();
      expect(mount.target.startsWith('/opt/abp/env')).toBe(false);
    }
    expect(access.carried.join('\n')).not.toContain('secret-token');
    // The host's proxy stays on the host: the egress proxy chains through it, nothing inside names it.
    expect(access.env).not.toHaveProperty('HTTPS_PROXY');
    expect(JSON.stringify(access.env)).not.toMatch(/[/@]proxy\.example/);
    // No resolver: the step has no network, the egress proxy resolves names on the host.
    expect(access.mounts.map((mount) => mount.target)).not.toContain('/etc/resolv.conf');
  });

  it('allows the public registries and every host the carried settings name, never the host proxy', () => {
    const access = registryAccess({
      HOME: dir,
      PIP_INDEX_URL: 'https://mirror.example/simple',
      HTTPS_PROXY: 'http://proxy.example:3128',
      GOPROXY: 'https://goproxy.example,https://goproxy2.example|direct',
    });
    const hosts = access.hosts.map((rule) => `${rule.host}:${rule.ports.join(',')}`);
    expect(hosts).toEqual(
      expect.arrayContaining([
        'pypi.org:443',
        'files.pythonhosted.org:443',
        'registry.npmjs.org:443',
        'proxy.golang.org:443',
        'index.crates.io:443',
        'mirror.example:443',
        'goproxy.example:443',
        'goproxy2.example:443',
        'npm.mirror.example:443',
        'pypi.mirror.example:8443',
      ]),
    );
    expect(hosts.filter((host) => host.includes('proxy.example') && !host.includes('goproxy'))).toEqual([]);
    expect(hosts.some((host) => host.includes('direct') || host.includes(','))).toBe(false);
  });

  it('carries the host’s Java trust store over the image’s for a JVM build only, and reads no host from it', async () => {
    // A store's certificates name their authorities' URLs; none of them may become an allowed host.
    const store = path.join(dir, 'cacerts');
    await writeFile(store, 'binary store with http://crl.authority.example/ca.crl inside');
    const named = { HOME: dir, JAVA_TOOL_OPTIONS: `-Xmx1g -Djavax.net.ssl.trustStore=${store}` };
    const jvm = registryAccess(named, { java: true });
    expect(jvm.mounts).toContainEqual({ source: store, target: '/etc/ssl/certs/java/cacerts' });
    expect(jvm.hosts.map((rule) => rule.host)).not.toContain('crl.authority.example');
    expect(jvm.env).not.toHaveProperty('JAVA_TOOL_OPTIONS');
    // Other images have no such file to bind over.
    expect(registryAccess(named).mounts.map((mount) => mount.target)).not.toContain('/etc/ssl/certs/java/cacerts');
    // A store the options name but that is not there is not replaced by another.
    const missing = { HOME: dir, MAVEN_OPTS: `-Djavax.net.ssl.trustStore=${path.join(dir, 'nowhere')}` };
    expect(registryAccess(missing, { java: true }).mounts.map((mount) => mount.target)).not.toContain(
      '/etc/ssl/certs/java/cacerts',
    );
  });
});
