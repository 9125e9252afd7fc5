// Test-suite detection over whole trees: the package manager a repository declares, the runner its scripts call
// (through other scripts, wrappers and workspaces), the ecosystem where its tests are, and recipes the freeze's own
// runner plans read per test, so the registry and the freeze agree on what a repository's suite is.
import { describe, expect, it } from 'vitest';
import { parseCommandLine, planRunner } from '@abp/grader/verification';
import {
  MAX_MANIFEST_BYTES,
  MAX_MANIFESTS,
  manifestsToRead,
  detectSuite,
} from '../../src/registry/suites/detect-suite.js';
import type { RepoTree } from '../../src/registry/suites/repo-tree.js';

function tree(files: Record<string, string | object>, more: readonly string[] = []): RepoTree {
  const texts = new Map(
    Object.entries(files).map(([path, text]) => [path, typeof text === 'string' ? text : JSON.stringify(text)]),
  );
  return { paths: [...texts.keys(), ...more].sort(), text: (path) => texts.get(path) };
}

/** The runner the freeze plans for a recipe's test command, as it will run it. */
function plannedRunner(test: string): string {
  return planRunner(parseCommandLine(test).argv, '/abp-report').runner;
}

describe('detectSuite: JavaScript', () => {
  it('takes pnpm at the version packageManager pins, and vitest from the workspaces the root script fans out to', () => {
    const suite = detectSuite(
      tree(
        {
          'package.json': { packageManager: 'pnpm@9.12.3', scripts: { test: 'pnpm -r test' } },
          'packages/core/package.json': { scripts: { test: 'vitest' }, devDependencies: { vitest: '^3' } },
          'packages/cli/package.json': { scripts: { test: 'vitest --coverage' } },
        },
        ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'packages/core/test/a.test.ts', 'packages/cli/src/b.spec.ts'],
      ),
    );
    expect(suite).toMatchObject({ ecosystem: 'node', packageManager: 'pnpm', runners: ['vitest'], testFiles: 2 });
    expect(suite?.recipe).toMatchObject({
      install: ['npx --yes pnpm@9.12.3 install --frozen-lockfile'],
      test: 'node_modules/.bin/vitest run',
      report: 'jest-json',
    });
    expect(plannedRunner(suite?.recipe?.test ?? '')).toBe('vitest');
  });

  it('follows run-s and npm run through cross-env and nyc to mocha, keeping its arguments, under yarn berry', () => {
    const suite = detectSuite(
      tree(
        {
          'package.json': {
            packageManager: 'yarn@4.5.0',
            scripts: {
              test: 'run-s lint test:*',
              lint: 'eslint .',
              'test:unit':
                'cross-env NODE_ENV=test nyc --reporter=lcov mocha "test/**/*.spec.js" --require test/setup.js',
            },
          },
          '.yarnrc.yml': 'nodeLinker: node-modules\nyarnPath: .yarn/releases/yarn-4.5.0.cjs\n',
        },
        ['yarn.lock', 'test/a.spec.js'],
      ),
    );
    expect(suite).toMatchObject({ packageManager: 'yarn-berry', runners: ['mocha'] });
    expect(suite?.recipe?.install).toEqual(['node .yarn/releases/yarn-4.5.0.cjs install --immutable']);
    expect(suite?.recipe?.test).toBe("node_modules/.bin/mocha 'test/**/*.spec.js' --require test/setup.js");
    // The freeze's plan reads it by mocha's xunit report, written where the grader says, whatever the task's reporter.
    const plan = planRunner(parseCommandLine(`${suite?.recipe?.test ?? ''} --reporter dot`).argv, '/abp-report');
    expect(plan.runner).toBe('mocha');
    expect(plan.argv.slice(-4)).toEqual(['--reporter', 'xunit', '--reporter-option', 'output=/abp-report/mocha.xml']);
    expect(plan.argv).not.toContain('dot');
  });

  it('follows `npm run -s x -- args` to the script x, handing the runner what follows `--`', () => {
    const suite = detectSuite(
      tree(
        {
          'package.json': {
            scripts: {
              test: 'run-s test:*',
              'test:unit': 'npm run -s mocha-run -- --timeout 5000 "test/unit/**/*.spec.js"',
              'mocha-run': 'node bin/mocha.js --forbid-only',
            },
          },
        },
        ['package-lock.json', 'test/unit/a.spec.js'],
      ),
    );
    expect(suite?.recipe?.test).toBe("node_modules/.bin/mocha --forbid-only --timeout 5000 'test/unit/**/*.spec.js'");
  });

  it('installs from the lockfile present, npm ci or npm install, and names runners it cannot read yet', () => {
    const npm = detectSuite(
      tree({ 'package.json': { scripts: { test: 'jest --ci' } } }, ['package-lock.json', '__tests__/x.js']),
    );
    expect(npm?.recipe).toMatchObject({
      install: ['npm ci --no-audit --no-fund'],
      test: 'node_modules/.bin/jest --ci',
    });
    expect(plannedRunner(npm?.recipe?.test ?? '')).toBe('jest');
    const karma = detectSuite(tree({ 'package.json': { scripts: { test: 'karma start' } } }, ['spec/a.spec.js']));
    expect(karma).toMatchObject({
      runners: ['karma'],
      recipe: null,
      unsupported: 'karma has no per-test reader in the freeze yet',
    });
    const bun = detectSuite(tree({ 'package.json': { scripts: { test: 'bun test' } } }, ['bun.lock', 'a.test.ts']));
    expect(bun).toMatchObject({ packageManager: 'bun', runners: ['bun-test'] });
    expect(bun?.recipe).toMatchObject({ test: 'bun test', report: 'junit-xml' });
    expect(plannedRunner(bun?.recipe?.test ?? '')).toBe('bun-test');
    const none = detectSuite(
      tree({ 'package.json': { scripts: { test: 'echo "Error: no test specified" && exit 1' } } }),
    );
    expect(none).toMatchObject({ runners: [], recipe: null });
  });
});

describe('detectSuite: the runners abp gives a reporter of its own', () => {
  it('runs jasmine and lab from node_modules/.bin with the script’s own arguments, read through abp’s reporter', () => {
    const jasmine = detectSuite(
      tree({ 'package.json': { scripts: { test: 'jasmine --random=false' } } }, [
        'package-lock.json',
        'spec/a.spec.js',
      ]),
    );
    expect(jasmine?.recipe).toMatchObject({
      runner: 'jasmine',
      test: 'node_modules/.bin/jasmine --random=false',
      report: 'abp-runner-json',
    });
    expect(plannedRunner(jasmine?.recipe?.test ?? '')).toBe('jasmine');
    const lab = detectSuite(
      tree({ 'package.json': { scripts: { test: 'lab -a @hapi/code -t 100 -L -m 5000 -Y' } } }, ['test/index.js']),
    );
    expect(lab?.recipe).toMatchObject({
      runner: 'lab',
      test: 'node_modules/.bin/lab -a @hapi/code -t 100 -L -m 5000 -Y',
      report: 'abp-runner-json',
    });
    expect(plannedRunner(lab?.recipe?.test ?? '')).toBe('lab');
  });
});

describe('detectSuite: the runners that print TAP', () => {
  it('runs ava, tape and QUnit from their binaries with the script’s own arguments, read as TAP', () => {
    const cases = [
      { test: 'xo && c8 ava --serial', runner: 'ava', command: 'node_modules/.bin/ava --serial', planned: 'ava' },
      {
        test: "tape 'test/**/*.js' | tap-spec",
        runner: 'tape',
        command: "node_modules/.bin/tape 'test/**/*.js'",
        planned: 'tape',
      },
      {
        test: 'qunit --require ./setup.js test/',
        runner: 'qunit',
        command: 'node_modules/.bin/qunit --require ./setup.js test/',
        planned: 'qunit',
      },
    ];
    for (const { test, runner, command, planned } of cases) {
      const suite = detectSuite(tree({ 'package.json': { scripts: { test } } }, ['package-lock.json', 'test/a.js']));
      expect(suite).toMatchObject({ runners: [runner], unsupported: null });
      expect(suite?.recipe).toMatchObject({ install: ['npm ci --no-audit --no-fund'], test: command, report: 'tap' });
      expect(plannedRunner(suite?.recipe?.test ?? '')).toBe(planned);
    }
  });

  it('turns off node-tap 16’s default coverage check, which fails a run whose tests all pass; newer tap rejects the flag', () => {
    const tapSuite = (range: string, test = 'tap test/*.js') =>
      detectSuite(tree({ 'package.json': { scripts: { test }, devDependencies: { tap: range } } }, ['test/a.js']));
    expect(tapSuite('^16.3.0')?.recipe?.test).toBe("node_modules/.bin/tap --no-coverage 'test/*.js'");
    expect(tapSuite('^21.1.0')?.recipe?.test).toBe("node_modules/.bin/tap 'test/*.js'");
    expect(tapSuite('latest')?.recipe?.test).toBe("node_modules/.bin/tap 'test/*.js'");
    expect(tapSuite('^15.0.0', 'tap --no-cov test/*.js')?.recipe?.test).toBe(
      "node_modules/.bin/tap --no-cov 'test/*.js'",
    );
    expect(plannedRunner(tapSuite('^16.3.0')?.recipe?.test ?? '')).toBe('node-tap');
  });
});

describe('detectSuite: the ecosystem where the tests are', () => {
  it('calls a gem with a root package.json for its assets Ruby, not JavaScript', () => {
    const suite = detectSuite(
      tree({ 'package.json': { scripts: { build: 'esbuild app.js' } } }, [
        'Gemfile',
        'spec/model_spec.rb',
        'spec/view_spec.rb',
        'app.js',
      ]),
    );
    expect(suite).toMatchObject({ ecosystem: 'ruby', runners: ['rspec'], recipe: null });
    // Specs outside spec/ are specs too (Homebrew keeps its under Library/Homebrew/test).
    expect(detectSuite(tree({}, ['Library/Homebrew/Gemfile', 'Library/Homebrew/test/a_spec.rb']))?.runners).toEqual([
      'rspec',
    ]);
    expect(suite?.unsupported).toContain('rubygems.org');
  });

  it('does not count a test suite’s sample inputs as tests: a Rust linter with Python fixtures is Rust', () => {
    const suite = detectSuite(
      tree(
        {
          'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n',
          'pyproject.toml': '[project]\nname = "x"\n',
          // Its unit tests sit in the crate root, where detection reads them.
          'crates/lint/src/lib.rs': 'pub fn lint() {}\n\n#[cfg(test)]\nmod tests {}\n',
        },
        [
          'crates/lint/resources/test/fixtures/a.py',
          'crates/lint/resources/test/fixtures/b.py',
          'crates/lint/resources/test/fixtures/c.py',
        ],
      ),
    );
    expect(suite).toMatchObject({ ecosystem: 'rust', runners: ['cargo-test'] });
    // A virtual workspace has no root crate: the whole workspace is tested.
    expect(suite?.recipe?.test).toBe('cargo test --workspace --no-fail-fast');
    expect(plannedRunner(suite?.recipe?.test ?? '')).toBe('cargo-test');
  });

  it('finds no suite in a project without a single test file, and none in a crate whose roots hold no test', () => {
    expect(detectSuite(tree({}, ['go.mod', 'main.go']))).toMatchObject({
      ecosystem: 'go',
      recipe: null,
      unsupported: 'no go test files in the tree',
    });
    const crate = detectSuite(tree({ 'Cargo.toml': '[package]\nname = "x"\n', 'src/main.rs': 'fn main() {}\n' }));
    expect(crate).toMatchObject({ ecosystem: 'rust', testFiles: 0, recipe: null });
    const tested = detectSuite(
      tree({ 'Cargo.toml': '[package]\nname = "x"\n', 'src/main.rs': '#[test]\nfn t() {}\n' }),
    );
    expect(tested?.recipe?.runner).toBe('cargo-test');
  });

  it('builds a CMake project with its own test options on and runs CTest, unless it fetches what it builds', () => {
    const cmake = [
      'cmake_minimum_required(VERSION 3.16)',
      'project(kit CXX)',
      'option(KIT_BUILD_TESTS "Build the tests" OFF)',
      'option(KIT_CUDA_TEST "Needs a GPU" OFF)',
      'enable_testing()',
      'find_package(GTest REQUIRED)',
      '',
    ].join('\n');
    const suite = detectSuite(
      tree({ 'CMakeLists.txt': cmake, 'test/CMakeLists.txt': 'gtest_discover_tests(kit_test)\n' }, [
        'test/kit_test.cpp',
      ]),
    );
    expect(suite).toMatchObject({ ecosystem: 'cpp', runners: ['ctest', 'googletest'], testFiles: 1 });
    expect(suite?.recipe).toEqual({
      runner: 'ctest',
      ecosystem: 'cpp',
      install: ['cmake -S . -B .abp-build -G Ninja -DBUILD_TESTING=ON -DKIT_BUILD_TESTS=ON'],
      test: 'ctest --build-and-test . .abp-build --build-generator Ninja --build-noclean --build-options -DBUILD_TESTING=ON -DKIT_BUILD_TESTS=ON --test-command ctest --output-on-failure',
      report: 'junit-xml',
    });
    const fetching = detectSuite(
      tree(
        {
          'CMakeLists.txt': `${cmake}include(FetchContent)\nFetchContent_Declare(googletest GIT_REPOSITORY https://github.com/google/googletest)\n`,
        },
        ['test/kit_test.cpp'],
      ),
    );
    expect(fetching).toMatchObject({
      recipe: null,
      unsupported: 'it fetches googletest while it configures or builds, and verification runs offline',
    });
    // FIND_PACKAGE_ARGS tries find_package first, which Debian's googletest satisfies.
    const found = detectSuite(
      tree(
        {
          'CMakeLists.txt': `${cmake}FetchContent_Declare(googletest URL https://example.invalid/gt.zip FIND_PACKAGE_ARGS NAMES GTest)\n`,
        },
        ['test/kit_test.cpp'],
      ),
    );
    expect(found?.recipe?.runner).toBe('ctest');
  });

  it('tests a Go workspace from its root, and a module below the root from there', () => {
    const work = detectSuite(tree({}, ['go.work', 'api/go.mod', 'api/x_test.go', 'cli/go.mod']));
    expect(work?.recipe?.test).toBe('go test ./...');
    const below = detectSuite(tree({}, ['src/go.mod', 'src/pkg/x_test.go']));
    expect(below?.recipe).toMatchObject({ install: ['go -C src mod download'], test: 'go -C src test ./...' });
  });

  it('finds Gradle and says why it is not runnable here, and runs Maven across its modules', () => {
    const gradle = detectSuite(tree({}, ['settings.gradle.kts', 'build.gradle.kts', 'core/src/test/java/ATest.java']));
    expect(gradle).toMatchObject({ ecosystem: 'jvm', packageManager: 'gradle', recipe: null });
    expect(gradle?.unsupported).toContain('services.gradle.org');
    const maven = detectSuite(tree({}, ['pom.xml', 'mvnw', 'core/pom.xml', 'core/src/test/java/ATest.java']));
    expect(maven?.recipe).toMatchObject({
      // The install runs the tests once, so Surefire's provider is fetched while the network is there.
      install: ['./mvnw -B -q test -Dmaven.test.failure.ignore=true'],
      test: './mvnw -B -fae test -Dmaven.test.failure.ignore=true',
      report: 'junit-xml',
    });
    expect(plannedRunner(maven?.recipe?.test ?? '')).toBe('maven-surefire');
  });
});

describe('detectSuite: Python', () => {
  it('installs a uv.lock with uv as locked, into the environment’s virtualenv; a uv project without a lock with pip', () => {
    const pyproject = (uv: string) =>
      [
        '[project]',
        'name = "pkg"',
        '[project.optional-dependencies]',
        'test = ["hypothesis"]',
        '[dependency-groups]',
        'tests = ["pytest>=8"]',
        uv,
      ].join('\n');
    const locked = detectSuite(tree({ 'pyproject.toml': pyproject('') }, ['uv.lock', 'tests/test_a.py']));
    expect(locked).toMatchObject({ packageManager: 'uv', runners: ['pytest'] });
    expect(locked?.recipe?.install).toEqual([
      'python -m pip install uv==0.13.9',
      'UV_PYTHON_DOWNLOADS=never uv sync --active --frozen --inexact --no-cache --extra test --group tests',
      'python -m pip install pytest',
    ]);
    // The version the project requires of uv, exact or a range.
    const pinned = detectSuite(
      tree({ 'pyproject.toml': pyproject('[tool.uv]\nrequired-version = ">=0.9"') }, ['uv.lock', 'tests/test_a.py']),
    );
    expect(pinned?.recipe?.install?.[0]).toBe("python -m pip install 'uv>=0.9'");
    const unlocked = detectSuite(
      tree({ 'pyproject.toml': pyproject('[tool.uv]\ndefault-groups = "all"') }, ['tests/test_a.py']),
    );
    expect(unlocked).toMatchObject({ packageManager: 'uv' });
    expect(unlocked?.recipe?.install).toContain("python -m pip install -e '.[test]'");
  });

  it('installs the test extras, dependency groups and test requirements, and pytest itself', () => {
    const suite = detectSuite(
      tree(
        {
          'pyproject.toml': [
            '[project]',
            'name = "pkg"',
            '[project.optional-dependencies]',
            'docs = ["sphinx"]',
            'tests = ["hypothesis"]',
            '[dependency-groups]',
            'dev = ["pytest>=8"]',
            '[tool.pytest.ini_options]',
            'testpaths = ["tests"]',
          ].join('\n'),
        },
        ['requirements/test.txt', 'tests/test_a.py', 'tests/conftest.py'],
      ),
    );
    expect(suite).toMatchObject({ ecosystem: 'python', packageManager: 'pip', runners: ['pytest'] });
    expect(suite?.recipe?.install).toEqual([
      "python -m pip install 'pip>=25.1'",
      "python -m pip install -e '.[tests]'",
      'python -m pip install --group dev',
      'python -m pip install -r requirements/test.txt',
      'python -m pip install pytest',
    ]);
    expect(plannedRunner(suite?.recipe?.test ?? '')).toBe('pytest');
  });

  it('installs a poetry.lock with poetry run from a folder of its own, with the test groups and extras poetry declares', () => {
    const pyproject = (more: string) =>
      [
        '[tool.poetry]',
        'name = "pkg"',
        more,
        '[tool.poetry.extras]',
        'test = ["hypothesis"]',
        'docs = ["sphinx"]',
        '[tool.poetry.group.dev.dependencies]',
        'pytest = "^8"',
        '[tool.poetry.group.lint.dependencies]',
        'ruff = "*"',
      ].join('\n');
    const locked = detectSuite(tree({ 'pyproject.toml': pyproject('') }, ['poetry.lock', 'tests/test_a.py']));
    expect(locked).toMatchObject({ packageManager: 'poetry', runners: ['pytest'] });
    expect(locked?.recipe?.install).toEqual([
      'python -m pip install --target .abp-poetry poetry==2.5.1',
      'PYTHONPATH=.abp-poetry python -m poetry install --no-interaction --with dev --extras test',
      'python -m pip install pytest',
    ]);
    const pinned = detectSuite(
      tree({ 'pyproject.toml': pyproject('requires-poetry = ">=2.1"') }, ['poetry.lock', 'tests/test_a.py']),
    );
    expect(pinned?.recipe?.install?.[0]).toBe("python -m pip install --target .abp-poetry 'poetry>=2.1'");
    // Without a lock, pip installs it; poetry's own groups are not PEP 735 groups, which pip would look for.
    const unlocked = detectSuite(tree({ 'pyproject.toml': pyproject('') }, ['tests/test_a.py']));
    expect(unlocked?.recipe?.install).toEqual(["python -m pip install -e '.[test]'", 'python -m pip install pytest']);
  });

  it('installs what the tox test environment installs: its deps, requirement files, extras and pip lines', () => {
    const toxIni = [
      '[tox]',
      'envlist = py311,lint',
      '[test-requirements]',
      'deps =',
      '    pytest-mock>=3  # mocks',
      '    Twisted[http2]',
      '[testenv]',
      'extras = socks',
      'dependency_groups = tests',
      'deps =',
      '    {[test-requirements]deps}',
      '    -r{toxinidir}/requirements/ci.txt',
      '    -r missing.txt',
      '    py312: tomli',
      '    {env:EXTRA_DEP}',
      '    poetry',
      '    git+https://example.com/pkg.git',
      '    --index-url=https://example.com/simple',
      '    attrs==23.1 --index-url=https://example.com/simple',
      'commands =',
      '    python -m pip install -e .[d]',
      '    pytest {posargs}',
      '[testenv:lint]',
      'deps = ruff',
    ].join('\n');
    const pyproject = [
      '[project]',
      'name = "pkg"',
      '[project.optional-dependencies]',
      'test = ["hypothesis"]',
      '[dependency-groups]',
      'tests = ["pytest>=8"]',
    ].join('\n');
    const suite = detectSuite(
      tree({ 'pyproject.toml': pyproject, 'tox.ini': toxIni }, ['requirements/ci.txt', 'tests/test_a.py']),
    );
    expect(suite?.recipe?.install).toEqual([
      "python -m pip install 'pip>=25.1'",
      // The test extra by its name, then tox's: its extras and the project's own pip line.
      "python -m pip install -e '.[test,socks,d]'",
      'python -m pip install --group tests',
      'python -m pip install -r requirements/ci.txt',
      // Factor lines, unresolved substitutions, runner tools, URLs and options are left out; only the base env counts.
      "python -m pip install 'pytest-mock>=3' 'Twisted[http2]'",
      'python -m pip install pytest',
    ]);
    // The same environment written in pyproject.toml: as an ini string, and natively.
    const legacy = detectSuite(
      tree({ 'pyproject.toml': `${pyproject}\n[tool.tox]\nlegacy_tox_ini = """\n${toxIni}\n"""\n` }, [
        'requirements/ci.txt',
        'tests/test_a.py',
      ]),
    );
    expect(legacy?.recipe?.install).toEqual(suite?.recipe?.install);
    const native = detectSuite(
      tree(
        {
          'pyproject.toml': [
            pyproject,
            '[tool.tox.env_run_base]',
            'extras = ["socks"]',
            'dependency_groups = ["tests"]',
            'deps = ["pytest-mock>=3", "Twisted[http2]", "-r requirements/ci.txt"]',
            'commands = [["python", "-m", "pip", "install", "-e", ".[d]"], ["pytest"]]',
          ].join('\n'),
        },
        ['requirements/ci.txt', 'tests/test_a.py'],
      ),
    );
    expect(native?.recipe?.install).toEqual(suite?.recipe?.install);
  });

  it('reads tox files as configparser does, never takes an option’s value for a package, and bounds references', () => {
    const suite = detectSuite(
      tree(
        {
          'pyproject.toml': '[project]\nname = "pkg"\n[project.optional-dependencies]\nTesting = ["pytest"]',
          'tox.ini': [
            '[testenv] # the base',
            'deps =',
            '    -c constraints/pins.txt',
            '    --constraint=constraints/more.txt',
            '    -e plugin',
            '',
            '    # a comment inside the value',
            '    coverage',
            'commands =',
            '    {envpython} -m pip install --upgrade-strategy eager --progress-bar off -e ".[testing]"',
            '    pytest',
          ].join('\n'),
        },
        ['constraints/pins.txt', 'constraints/more.txt', 'tests/test_a.py'],
      ),
    );
    expect(suite?.recipe?.install).toEqual([
      "python -m pip install -e '.[Testing]'",
      'python -m pip install -c constraints/pins.txt -c constraints/more.txt coverage',
      'python -m pip install pytest',
    ]);
    // A value that references itself over and over is given up rather than grown without bound.
    const bomb = ['[a]', `x = ${'{[a]x}'.repeat(40)}`, '[testenv]', 'deps =', '    {[a]x}', '    six'].join('\n');
    const bounded = detectSuite(
      tree({ 'pyproject.toml': '[project]\nname = "pkg"', 'tox.ini': bomb }, ['tests/test_a.py']),
    );
    expect(bounded?.recipe?.install).toEqual(['python -m pip install -e .', 'python -m pip install pytest']);
  });

  it('names a suite with no pytest anywhere unittest, which pytest runs', () => {
    const suite = detectSuite(tree({ 'setup.py': 'setup()' }, ['tornado/test/web_test.py']));
    expect(suite).toMatchObject({ runners: ['unittest'], recipe: { test: 'python -m pytest' } });
  });
});

describe('manifestsToRead', () => {
  it('reads manifests and crate roots, shallowest first, none over 1 MiB, at most 300', () => {
    const files = [
      { path: 'packages/b/package.json', size: 10 },
      { path: 'package.json', size: 10 },
      { path: 'huge/package.json', size: MAX_MANIFEST_BYTES + 1 },
      { path: 'src/lib.rs', size: 10 },
      { path: 'src/index.js', size: 10 },
      { path: 'packages/a/package.json', size: 10 },
    ];
    expect(manifestsToRead(files)).toEqual([
      'package.json',
      'src/lib.rs',
      'packages/a/package.json',
      'packages/b/package.json',
    ]);
    const many = Array.from({ length: 400 }, (_, index) => ({ path: `p/${index}/package.json`, size: 1 }));
    expect(manifestsToRead(many)).toHaveLength(MAX_MANIFESTS);
  });
});
