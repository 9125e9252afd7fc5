import { describe, expect, it } from 'vitest';
import { machineryRule } from '../../src/verification/machinery.js';

const restore = (path: string, before: string | null, after: string) => machineryRule(path)?.restore(before, after);

describe('the verification machinery', () => {
  it('covers the files that configure or extend each runner, and not ordinary code', () => {
    for (const path of [
      'pytest.ini',
      'src/sitecustomize.py',
      'x.pth',
      '.cargo/config.toml',
      'crates/a/build.rs',
      'go.mod',
      'jest.config.js',
      'vitest.config.ts',
      'ava.config.mjs',
      'packages/a/.taprc',
      'spec/support/jasmine.json',
      'spec/support/jasmine.mjs',
      '.labrc.js',
      'bunfig.toml',
      'node_modules/a/index.js',
      'vendor/x/y.go',
      'pom.xml',
      'evil_plugin-1.0.dist-info/entry_points.txt',
      'src/pkg.egg-info/entry_points.txt',
      'pkg.egg-link',
    ])
      expect([path, machineryRule(path) !== null]).toEqual([path, true]);
    // jasmine-core's own source is lib/jasmine-core/jasmine.js: only jasmine's configuration folder counts.
    for (const path of [
      'src/lib.rs',
      'calc/ops.py',
      'README.md',
      'src/config.toml',
      'docs/dist-info.md',
      'lib/jasmine-core/jasmine.js',
    ])
      expect([path, machineryRule(path)]).toEqual([path, null]);
  });

  it('puts back only pytest sections of pyproject.toml, keeping the rest of the change', () => {
    const before = '[project]\nname = "a"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';
    const after =
      '[project]\nname = "a"\nversion = "2"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-k not_x"\n';
    expect(restore('pyproject.toml', before, after)).toBe(
      '[project]\nname = "a"\nversion = "2"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    );
  });

  it('puts back the whole file when pytest settings hide outside their section', () => {
    const before = '[project]\nname = "a"\n';
    const after = '[project]\nname = "a"\n\n[tool]\npytest.ini_options.addopts = "-k nope"\n';
    expect(restore('pyproject.toml', before, after)).toBe(before);
  });

  it('puts back the test runner fields of package.json only', () => {
    const before = '{"name":"a","main":"a.js","scripts":{"test":"node --test"}}';
    const after = '{"name":"a","main":"b.js","scripts":{"test":"true"},"jest":{"setupFiles":["x"]}}';
    expect(JSON.parse(restore('package.json', before, after) ?? '')).toEqual({
      name: 'a',
      main: 'b.js',
      scripts: { test: 'node --test' },
    });
    expect(restore('package.json', before, '{"name":"a","main":"b.js","scripts":{"test":"node --test"}}')).toContain(
      'b.js',
    );
  });

  it('removes a runner file the engine added', () => {
    expect(restore('build.rs', null, 'fn main() {}')).toBeNull();
    expect(restore('.cargo/config.toml', null, '[build]\n')).toBeNull();
  });
});
