import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adaptersSchema, type Adapter } from '@abp/protocol/schemas/abp-adapters';
import { placeEngine, programPaths } from '../../src/run/engine-placement.js';
import { environmentArgv, type ImageConfig } from '../../src/environments/index.js';

const adapter = (fields: Partial<Adapter>): Adapter =>
  adaptersSchema.parse({
    schema: 'abp-adapters/v1',
    executionPolicy: 'sandboxed',
    adapters: [
      {
        engine: 'e',
        command: ['/opt/engine/bin/run'],
        metadata: {},
        preflight: { prompt: 'p', sentinel: 'ok' },
        ...fields,
      },
    ],
  }).adapters[0] as Adapter;

const config: ImageConfig = {
  architecture: 'amd64',
  os: 'linux',
  config: {
    Env: ['PATH=/opt/abp/node/bin:/usr/bin:/bin', 'LANG=C.UTF-8', 'GOFLAGS=-modcacherw'],
    WorkingDir: '/work/repo',
    Labels: {},
  },
  rootfs: { type: 'layers', diff_ids: [] },
};
const folders = { workspace: '/t/trial/workspace', state: '/t/trial/state', tmp: '/t/trial/tmp', out: '/t/trial/out' };
const hostEnv = { PATH: '/host/bin', API_TOKEN: 'token-value', HOME: '/root' };
const image = { digest: `sha256:${'a'.repeat(64)}`, rootfs: '/store/rootfs/x', config };

const place = (
  fields: Partial<Adapter>,
  policy: 'sandboxed' | 'trusted-local',
  withImage = true,
  namespaces = true,
  egress: string | null = null,
) =>
  placeEngine({
    adapter: adapter(fields),
    adaptersDir: '/cfg',
    policy,
    namespaces,
    hostEnv,
    folders,
    gitDir: '/cache/repo.git',
    hiddenPaths: ['/tasks'],
    image: withImage ? image : null,
    egress,
  });

describe('where an engine runs', () => {
  it('lists {repo} first and expands it in the program paths', () => {
    expect(programPaths(adapter({ program: ['{repo}/bin', '/opt/engine', '/cfg'] }), '/cfg')).toEqual([
      '/cfg',
      '/cfg/bin',
      '/opt/engine',
    ]);
  });

  it('refuses a program path that is neither absolute nor under {repo}', () => {
    expect(() => adapter({ program: ['engine/bin'] })).toThrow(/absolute path or start with \{repo\}/);
  });

  it("inside an environment: the fixed folders, the image's PATH, the host's allowed values, and program paths moved", () => {
    const placement = place(
      { program: ['/opt/engine'], env: { allow: ['API_TOKEN'], set: { ENGINE_DATA: '/opt/engine/data', N: '1' } } },
      'sandboxed',
    );
    expect(placement.seen).toEqual({ workspace: '/work/repo', state: '/work/state', out: '/work/out' });
    expect(placement.cwd).toBe('/work/repo');
    expect(placement.sandbox).toBeNull();
    expect(placement.env).toMatchObject({
      PATH: '/opt/abp/node/bin:/usr/bin:/bin',
      HOME: '/work/state',
      TMPDIR: '/tmp',
      API_TOKEN: 'token-value',
      ENGINE_DATA: '/run/abp/engine/opt/engine/data',
      N: '1',
      GOPROXY: 'off',
      GOFLAGS: '-modcacherw -count=1',
    });
    expect(placement.translate('/opt/engine')).toBe('/run/abp/engine/opt/engine');
    expect(placement.translate('/opt/engine/bin/run')).toBe('/run/abp/engine/opt/engine/bin/run');
    expect(placement.translate('/opt/engine-other/x')).toBe('/opt/engine-other/x');
    expect(placement.translate('/cfg/wrapper.sh')).toBe('/run/abp/engine/cfg/wrapper.sh');
    expect(placement.translate('--flag')).toBe('--flag');
    expect(placement.environment?.network).toBe(false);
    expect(placement.environment?.checkout).toBe(folders.workspace);
    expect(placement.environment?.mounts).toEqual([
      { source: folders.state, target: '/work/state', writable: true },
      { source: folders.out, target: '/work/out', writable: true },
      { source: folders.tmp, target: '/tmp', writable: true },
      { source: '/cache/repo.git', target: '/work/base.git' },
      { source: '/cfg', target: '/run/abp/engine/cfg' },
      { source: '/opt/engine', target: '/run/abp/engine/opt/engine' },
    ]);
  });

  it("hands a sandboxed engine its egress proxy's socket, in an environment and on the host, and never a trusted-local one", () => {
    const socket = '/tmp/abp-engine-egress-x/proxy.sock';
    const inImage = place({}, 'sandboxed', true, true, socket);
    expect(inImage.environment?.egress).toBe(socket);
    const args = environmentArgv(inImage.environment!, ['/run/abp/engine/cfg/run'], inImage.cwd);
    expect(args.join(' ')).toContain(`--bind ${socket} /run/abp/egress/proxy.sock`);
    // The relay is the program bwrap starts; the engine's command is its child.
    expect(args.slice(args.indexOf('--') + 1)).toEqual([
      '/run/abp/egress/node',
      '/run/abp/egress/relay.js',
      '/run/abp/egress/proxy.sock',
      '3128',
      '--',
      '/run/abp/engine/cfg/run',
    ]);
    expect(place({}, 'sandboxed', false, true, socket).sandbox?.egress).toBe(socket);
    expect(place({}, 'trusted-local', true, true, socket).environment?.egress).toBeNull();
    expect(place({}, 'trusted-local', false, true, socket).sandbox?.egress).toBeUndefined();
    expect(place({}, 'sandboxed', true, true, null).environment?.egress).toBeNull();
  });

  it('binds the program folders read-only and the trial folders writable, and nothing of the host else', () => {
    const placement = place({ program: ['/opt/engine'] }, 'sandboxed');
    const args = environmentArgv(placement.environment!, ['/run/abp/engine/opt/engine/bin/run'], placement.cwd);
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    const binds = args.flatMap((arg, index) =>
      arg === '--bind' || arg === '--ro-bind' ? [`${arg} ${args[index + 1]} ${args[index + 2]}`] : [],
    );
    expect(binds).toEqual([
      '--ro-bind /store/rootfs/x /',
      `--bind ${folders.workspace} /work/repo`,
      `--bind ${folders.tmp} /tmp`,
      `--bind ${folders.state} /work/state`,
      `--bind ${folders.out} /work/out`,
      '--ro-bind /cache/repo.git /work/base.git',
      '--ro-bind /cfg /run/abp/engine/cfg',
      '--ro-bind /opt/engine /run/abp/engine/opt/engine',
    ]);
  });

  it('covers what is hidden where it lies inside a folder bound for the engine, but what a trusted-local adapter lists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'abp-placement-'));
    try {
      mkdirSync(join(dir, 'results'));
      writeFileSync(join(dir, 'held-out.patch'), 'x');
      const at = (policy: 'sandboxed' | 'trusted-local', program: string[] = []) =>
        placeEngine({
          adapter: adapter({ program }),
          adaptersDir: dir,
          policy,
          namespaces: true,
          hostEnv,
          folders,
          gitDir: '/cache/repo.git',
          hiddenPaths: [join(dir, 'results'), join(dir, 'held-out.patch'), '/elsewhere/tasks'],
          image,
          egress: null,
        }).environment?.covered;
      expect(at('sandboxed')).toEqual([
        { target: `/run/abp/engine${dir}/results`, folder: true },
        { target: `/run/abp/engine${dir}/held-out.patch`, folder: false },
      ]);
      expect(at('trusted-local')).toEqual(at('sandboxed'));
      // The bundled reference engine lists the task folders it reads golden patches from: trusted-local only.
      expect(at('trusted-local', [join(dir, 'results')])).toEqual([
        { target: `/run/abp/engine${dir}/held-out.patch`, folder: false },
      ]);
      expect(at('sandboxed', [join(dir, 'results')])).toEqual(at('sandboxed'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the host network for a trusted-local engine only', () => {
    expect(place({}, 'trusted-local').environment?.network).toBe(true);
    expect(place({}, 'sandboxed').environment?.network).toBe(false);
  });

  it("on the host: the trial's own folders, default-deny under sandboxed with the program paths bound in", () => {
    const sandboxed = place({ program: ['/tmp/engine'] }, 'sandboxed', false);
    expect(sandboxed.environment).toBeNull();
    expect(sandboxed.seen.workspace).toBe(folders.workspace);
    expect(sandboxed.env['PATH']).toBe('/host/bin');
    expect(sandboxed.sandbox).toEqual({
      view: 'isolated',
      writable: [folders.workspace, folders.state, folders.tmp, folders.out],
      hidden: ['/tasks'],
      readOnly: ['/cfg', '/tmp/engine', '/cache/repo.git'],
      egress: null,
    });
    expect(sandboxed.translate('/tmp/engine/run')).toBe('/tmp/engine/run');
  });

  it('on the host under trusted-local: the whole host in namespaces of its own, the grader folders hidden', () => {
    expect(place({ program: ['/tmp/engine'] }, 'trusted-local', false).sandbox).toEqual({
      view: 'host',
      writable: [folders.workspace, folders.state, folders.tmp, folders.out],
      hidden: ['/tasks'],
      readOnly: ['/cache/repo.git'],
    });
    // A listed program folder inside a hidden one is shown to this engine, read-only.
    expect(place({ program: ['/tasks/golden'] }, 'trusted-local', false).sandbox).toMatchObject({
      hidden: ['/tasks'],
      readOnly: ['/tasks/golden', '/cache/repo.git'],
    });
    expect(place({ program: ['/tasks'] }, 'trusted-local', false).sandbox).toMatchObject({
      hidden: [],
      readOnly: ['/cache/repo.git'],
    });
    // Without bubblewrap a trusted-local engine is a plain process group; the run warns of it.
    expect(place({}, 'trusted-local', false, false).sandbox).toBeNull();
  });
});
