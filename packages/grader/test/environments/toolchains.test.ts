import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../src/environments/errors.js';
import { basePlan, requestedToolchain, satisfiesPython } from '../../src/environments/toolchains.js';

describe('requestedToolchain', () => {
  it('reads the version a repository names, per ecosystem', () => {
    expect(requestedToolchain('node', { '.nvmrc': 'v22.11.0\n' })).toEqual({ node: '22.11.0' });
    expect(requestedToolchain('node', { 'package.json': '{"engines":{"node":">=18.17"}}' })).toEqual({ node: '>=18' });
    expect(requestedToolchain('go', { 'go.mod': 'module m\n\ngo 1.22\n' })).toEqual({ go: '1.22.0' });
    expect(requestedToolchain('go', { 'go.mod': 'module m\n\ngo 1.22\n\ntoolchain go1.24.5\n' })).toEqual({
      go: '1.24.5',
    });
    expect(
      requestedToolchain('python', { 'pyproject.toml': '[project]\nrequires-python = ">= 3.8, <3.10"\n' }),
    ).toEqual({
      python: '>=3.8,<3.10',
    });
    expect(requestedToolchain('python', { 'setup.py': 'setup(python_requires=">=3.9")' })).toEqual({ python: '>=3.9' });
    expect(requestedToolchain('rust', { 'rust-toolchain.toml': '[toolchain]\nchannel = "1.80"\n' })).toEqual({
      rust: '1.80',
    });
  });

  it('asks for bun beside Node where the repository runs it: the version packageManager pins, else the newest 1.x', () => {
    expect(
      requestedToolchain('node', { '.nvmrc': '22\n', 'package.json': '{"packageManager":"bun@1.2.0+sha512.abc"}' }),
    ).toEqual({ node: '22', bun: '1.2.0' });
    expect(requestedToolchain('node', { 'package.json': '{}', 'bun.lock': '{}' })).toEqual({ bun: '1' });
    expect(requestedToolchain('node', { 'package.json': '{"scripts":{"test":"tsc && bun test"}}' })).toEqual({
      bun: '1',
    });
    // A word that merely holds "bun" is not bun.
    expect(requestedToolchain('node', { 'package.json': '{"scripts":{"test":"bundle-check x"}}' })).toEqual({});
  });

  it('asks for nothing where the repository says nothing or says it unreadably', () => {
    expect(requestedToolchain('node', { 'package.json': '{not json' })).toEqual({});
    expect(requestedToolchain('go', {})).toEqual({});
    expect(requestedToolchain('python', { 'pyproject.toml': '[project]\nname = "x"\n' })).toEqual({});
  });
});

describe('satisfiesPython', () => {
  it('holds a major.minor against PEP 440 specifier sets', () => {
    expect(satisfiesPython('3.9', '>=3.8,<3.10')).toBe(true);
    expect(satisfiesPython('3.11', '>=3.8,<3.10')).toBe(false);
    expect(satisfiesPython('3.11', '==3.11.*')).toBe(true);
    expect(satisfiesPython('3.13', '!=3.13')).toBe(false);
    expect(satisfiesPython('3.9', '>3.8')).toBe(true);
  });
});

describe('basePlan', () => {
  it('takes the Debian suite whose Python the repository asks for, preferring stable when a range allows it', () => {
    expect(basePlan('python', { python: '>=3.8' }).suite).toBe('bookworm');
    expect(basePlan('python', { python: '<3.10' }).suite).toBe('bullseye');
    expect(basePlan('python', { python: '>=3.12' }).suite).toBe('trixie');
    expect(basePlan('python', { python: '3.9' }).suite).toBe('bullseye');
    expect(basePlan('python', {}).packages).toContain('python3-venv');
  });

  it('refuses a Python no suite has, naming the ones it can build', () => {
    try {
      basePlan('python', { python: '3.12' });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(EnvironmentError);
      expect((error as EnvironmentError).code).toBe('toolchain-unavailable');
      expect((error as Error).message).toContain('3.11 in bookworm');
    }
  });

  it('takes the newest Rust unless an older one is asked for', () => {
    expect(basePlan('rust', {}).suite).toBe('trixie');
    expect(basePlan('rust', { rust: '1.63.0' }).suite).toBe('bookworm');
    expect(basePlan('rust', { rust: '1.70' }).suite).toBe('trixie');
  });
});
