import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolchainFolders } from '../../src/execution/sandbox.js';

const root = mkdtempSync(join(tmpdir(), 'abp-toolchains-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const folder = (...parts: string[]) => {
  const path = join(root, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
};

describe('the toolchain folders an isolated command sees', () => {
  it("widens a bin/ or shims/ entry to the toolchain's root and keeps other entries as they are", () => {
    const env = {
      PATH: [folder('pyenv', 'shims'), folder('cargo', 'bin'), folder('tools', 'libexec'), '/usr/bin', '/bin'].join(
        ':',
      ),
      HOME: folder('home'),
    };
    expect(toolchainFolders(env, [])).toEqual([
      join(root, 'cargo'),
      join(root, 'pyenv'),
      join(root, 'tools', 'libexec'),
    ]);
  });

  it('leaves out the system folders, missing and relative entries, and folders inside a listed one', () => {
    const env = {
      PATH: ['/usr/local/bin', 'node_modules/.bin', join(root, 'absent', 'bin'), folder('go', 'bin')].join(':'),
      GOPATH: join(root, 'go'),
      GOMODCACHE: folder('go', 'pkg', 'mod'),
      HOME: folder('home'),
    };
    expect(toolchainFolders(env, [])).toEqual([join(root, 'go')]);
  });

  it("never widens to the user's home or /, nor to a folder holding a hidden one, nor binds a hidden path", () => {
    const home = folder('user');
    const env = {
      PATH: [folder('user', 'bin'), folder('work', 'bin'), folder('work', 'data', 'bin'), folder('linked')].join(':'),
      HOME: home,
    };
    const data = folder('work', 'data');
    symlinkSync(data, join(root, 'data-link'));
    expect(toolchainFolders(env, [join(root, 'data-link')])).toEqual([
      join(root, 'linked'),
      join(root, 'user', 'bin'),
      join(root, 'work', 'bin'),
    ]);
  });
});
