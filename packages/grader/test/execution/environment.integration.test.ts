import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBounded } from '../../src/execution/bounded-command.js';
import { reducedEnvironment } from '../../src/execution/environment.js';
import { codeOf } from './execution-error.js';

const hostEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/root',
  SECRET_TOKEN: 'hunter2',
  OPENAI_API_KEY: 'sk-1',
  LANG: 'fr_FR.UTF-8',
  SSH_AUTH_SOCK: '/s',
};

describe('reducedEnvironment', () => {
  it('keeps only the base, the allowed host variables and the literal values', () => {
    const { env, missing } = reducedEnvironment({
      hostEnv,
      allow: ['OPENAI_API_KEY', 'NOT_THERE'],
      set: { MODEL: 'm-1' },
      home: '/h',
      tmp: '/t',
    });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/h',
      TMPDIR: '/t',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
      TERM: 'dumb',
      OPENAI_API_KEY: 'sk-1',
      MODEL: 'm-1',
    });
    expect(missing).toEqual(['NOT_THERE']);
  });

  it('lets an allowed host variable replace a base value and a literal value win over both', () => {
    expect(reducedEnvironment({ hostEnv, allow: ['LANG'], set: {}, home: '/h', tmp: '/t' }).env['LANG']).toBe(
      'fr_FR.UTF-8',
    );
    expect(
      reducedEnvironment({
        hostEnv,
        allow: ['LANG'],
        set: { LANG: 'en_GB.UTF-8', TZ: 'Europe/Paris' },
        home: '/h',
        tmp: '/t',
      }).env,
    ).toMatchObject({
      LANG: 'en_GB.UTF-8',
      TZ: 'Europe/Paris',
    });
  });

  it('reports a host without PATH', () => {
    const { env, missing } = reducedEnvironment({ hostEnv: {}, allow: [], set: {}, home: '/h', tmp: '/t' });
    expect(env['PATH']).toBeUndefined();
    expect(missing).toEqual(['PATH']);
  });

  it.each([
    ['set', 'PATH'],
    ['set', 'HOME'],
    ['allow', 'TMPDIR'],
    ['allow', 'HOME'],
  ])('refuses to let %s name %s', (list, name) => {
    const input = {
      hostEnv,
      allow: list === 'allow' ? [name] : [],
      set: list === 'set' ? { [name]: '/x' } : {},
      home: '/h',
      tmp: '/t',
    };
    expect(codeOf(() => reducedEnvironment(input))).toBe('reserved-variable');
  });

  it.each([['1ABC'], ['A-B'], [''], ['A B'], ['X=1']])('rejects the variable name %j', (name) => {
    expect(codeOf(() => reducedEnvironment({ hostEnv, allow: [name], set: {}, home: '/h', tmp: '/t' }))).toBe(
      'invalid-variable-name',
    );
    expect(codeOf(() => reducedEnvironment({ hostEnv, allow: [], set: { [name]: 'v' }, home: '/h', tmp: '/t' }))).toBe(
      'invalid-variable-name',
    );
  });
});

describe('reducedEnvironment in a real child', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'abp-env-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('gives the child exactly the reduced environment: a host secret not allowed is absent', async () => {
    const host = { ...process.env, ABP_TEST_SECRET: 'do-not-leak', ABP_TEST_ALLOWED: 'passed' };
    const { env } = reducedEnvironment({
      hostEnv: host,
      allow: ['ABP_TEST_ALLOWED'],
      set: { ABP_TEST_SET: 'literal' },
      home: folder,
      tmp: folder,
    });
    const result = await runBounded({
      argv: ['node', '-e', 'process.stdout.write(JSON.stringify(process.env))'],
      cwd: folder,
      env,
      timeoutMs: 20_000,
      maxOutputBytes: 1_000_000,
    });
    expect(result.exitCode).toBe(0);
    const childEnv = JSON.parse(result.stdout.toString('utf8')) as Record<string, string>;
    expect(childEnv).toEqual(env);
    expect(childEnv['ABP_TEST_SECRET']).toBeUndefined();
    expect(childEnv['ABP_TEST_ALLOWED']).toBe('passed');
  });
});
