// The verification commands of a frozen task: the test command narrowed to the FAIL_TO_PASS tests
// per runner, the full command otherwise, and every command readable by the grader without a shell.
import { describe, expect, it } from 'vitest';
import { verificationCommands } from '../../src/freeze/index.js';
import { parseCommandLine } from '@abp/grader/verification';

const file = (path: string, content = '') => ({ path, content: Buffer.from(content) });

describe('verificationCommands', () => {
  it('narrows pytest to the held-out files that hold the FAIL_TO_PASS tests, classes included', () => {
    const commands = verificationCommands({
      test: 'python3 -m pytest -q -p no:cacheprovider',
      failToPass: [
        'tests/test_parse.py::test_negative',
        'tests/unit/test_merge.py::TestMerge::test_touching[a::b]',
        'tests/test_parse.py::test_spaces',
      ],
      heldOutFiles: [file('tests/test_parse.py'), file('tests/unit/test_merge.py'), file('tests/conftest.py')],
    });
    expect(commands).toEqual({
      failToPass: ['python3 -m pytest -q -p no:cacheprovider tests/test_parse.py tests/unit/test_merge.py'],
      passToPass: ['python3 -m pytest -q -p no:cacheprovider'],
    });
  });

  it('keeps the full command when pytest already names what to run, or a test is in no held-out file', () => {
    expect(
      verificationCommands({
        test: 'pytest tests/unit',
        failToPass: ['tests/unit/test_a.py::test_x'],
        heldOutFiles: [file('tests/unit/test_a.py')],
      }),
    ).toEqual({ failToPass: ['pytest tests/unit'], passToPass: [] });
    expect(
      verificationCommands({
        test: 'pytest',
        failToPass: ['tests/test_old.py::test_x'],
        heldOutFiles: [file('tests/test_new.py')],
      }),
    ).toEqual({ failToPass: ['pytest'], passToPass: [] });
  });

  it('narrows node --test to the files a report names, or else to the files defining the test title', () => {
    const heldOutFiles = [
      file('test/slugify.test.js', "  test('transliterates accented letters', () => {"),
      file('test/other.test.js', 'test(`unrelated`)'),
    ];
    expect(
      verificationCommands({
        test: 'node --test',
        failToPass: ['slugify › transliterates accented letters'],
        heldOutFiles,
      }).failToPass,
    ).toEqual(['node --test test/slugify.test.js']);
    expect(
      verificationCommands({ test: 'node --test', failToPass: ['test/other.test.js::suite › anything'], heldOutFiles })
        .failToPass,
    ).toEqual(['node --test test/other.test.js']);
    expect(
      verificationCommands({ test: 'node --test', failToPass: ['slugify › a title nobody wrote'], heldOutFiles }),
    ).toEqual({ failToPass: ['node --test'], passToPass: [] });
    // A file list in the recipe is already a selection; adding to it would widen it.
    expect(
      verificationCommands({
        test: 'node --test test/unit/',
        failToPass: ['slugify › transliterates accented letters'],
        heldOutFiles,
      }).passToPass,
    ).toEqual([]);
  });

  it('narrows go test with -run over the top-level test functions, keeping variables before the command', () => {
    const commands = verificationCommands({
      test: 'GOFLAGS=-mod=mod go test -json ./...',
      failToPass: [
        'example.com/m/pkg::TestParse/negative',
        'example.com/m::TestFormat',
        'example.com/m/pkg::TestParse/zero',
        'example.com/m::ExampleFormat',
      ],
      heldOutFiles: [],
    });
    expect(commands.failToPass).toEqual([
      "GOFLAGS=-mod=mod go test -run '^(ExampleFormat|TestFormat|TestParse)$' -json ./...",
    ]);
    expect(parseCommandLine(commands.failToPass[0] ?? '')).toEqual({
      env: { GOFLAGS: '-mod=mod' },
      argv: ['go', 'test', '-run', '^(ExampleFormat|TestFormat|TestParse)$', '-json', './...'],
    });
    expect(
      verificationCommands({ test: 'go test -run TestX ./...', failToPass: ['m::TestY'], heldOutFiles: [] }).passToPass,
    ).toEqual([]);
    expect(
      verificationCommands({ test: 'go test ./...', failToPass: ['m [build failed]'], heldOutFiles: [] }).passToPass,
    ).toEqual([]);
  });

  it('narrows cargo test to the integration targets the ids name, before any libtest arguments', () => {
    const heldOutFiles = [file('tests/version.rs', '#[test]\nfn sorts_prereleases() {}\n')];
    expect(
      verificationCommands({
        test: 'cargo test --no-fail-fast -- --test-threads=1',
        failToPass: ['tests/version.rs::sorts_prereleases', 'tests/cli/main.rs::runs'],
        heldOutFiles,
      }).failToPass,
    ).toEqual(['cargo test --no-fail-fast --test cli --test version -- --test-threads=1']);
    // A unit test in the library, or a target already chosen by the recipe, keeps the full command.
    expect(
      verificationCommands({ test: 'cargo test', failToPass: ['src/lib.rs::tests::in_lib'], heldOutFiles }).passToPass,
    ).toEqual([]);
    expect(
      verificationCommands({
        test: 'cargo test --lib',
        failToPass: ['tests/version.rs::sorts_prereleases'],
        heldOutFiles,
      }).passToPass,
    ).toEqual([]);
  });

  it('narrows vitest and jest to the held-out files their ids begin with', () => {
    const heldOutFiles = [file('test/a.test.ts'), file('test/b.test.ts')];
    expect(
      verificationCommands({ test: 'npx vitest run', failToPass: ['test/b.test.ts > math > adds'], heldOutFiles }),
    ).toEqual({ failToPass: ['npx vitest run test/b.test.ts'], passToPass: ['npx vitest run'] });
    expect(
      verificationCommands({ test: 'npx jest --ci', failToPass: ['test/a.test.ts › adds'], heldOutFiles }).failToPass,
    ).toEqual(['npx jest --ci test/a.test.ts']);
    // Files named already, or an id outside the held-out files, keep the full command.
    expect(
      verificationCommands({ test: 'npx jest test/', failToPass: ['test/a.test.ts › adds'], heldOutFiles }).passToPass,
    ).toEqual([]);
    expect(
      verificationCommands({ test: 'npx vitest', failToPass: ['src/x.test.ts > adds'], heldOutFiles }).passToPass,
    ).toEqual([]);
  });

  it('narrows node-tap to the held-out files its ids begin with (each file is its top-level subtest)', () => {
    const heldOutFiles = [file('test/a.test.js'), file('test/b.test.js')];
    expect(
      verificationCommands({
        test: 'node_modules/.bin/tap --no-coverage',
        failToPass: ['test/b.test.js > parse > negative', 'test/a.test.js'],
        heldOutFiles,
      }),
    ).toEqual({
      failToPass: ['node_modules/.bin/tap --no-coverage test/a.test.js test/b.test.js'],
      passToPass: ['node_modules/.bin/tap --no-coverage'],
    });
    expect(
      verificationCommands({ test: 'npx tap run -j 2', failToPass: ['test/a.test.js > x'], heldOutFiles }).failToPass,
    ).toEqual(['npx tap run -j 2 test/a.test.js']);
    expect(
      verificationCommands({ test: "tap 'test/*.js'", failToPass: ['test/a.test.js > x'], heldOutFiles }).passToPass,
    ).toEqual([]);
  });

  it('narrows jasmine and bun test to the held-out files their ids begin with; bun’s as paths, not filters', () => {
    const heldOutFiles = [file('spec/a.spec.js'), file('test/b.test.ts')];
    expect(
      verificationCommands({
        test: 'node_modules/.bin/jasmine --random=false',
        failToPass: ['spec/a.spec.js > math > adds'],
        heldOutFiles,
      }),
    ).toEqual({
      failToPass: ['node_modules/.bin/jasmine --random=false spec/a.spec.js'],
      passToPass: ['node_modules/.bin/jasmine --random=false'],
    });
    expect(
      verificationCommands({ test: 'bun test --timeout 9000', failToPass: ['test/b.test.ts > adds'], heldOutFiles }),
    ).toEqual({ failToPass: ['bun test --timeout 9000 ./test/b.test.ts'], passToPass: ['bun test --timeout 9000'] });
    // Files or filters named already keep the full command.
    expect(
      verificationCommands({ test: 'bun test lib', failToPass: ['test/b.test.ts > adds'], heldOutFiles }).passToPass,
    ).toEqual([]);
    expect(
      verificationCommands({
        test: 'node_modules/.bin/jasmine spec/a.spec.js',
        failToPass: ['spec/a.spec.js > adds'],
        heldOutFiles,
      }).passToPass,
    ).toEqual([]);
  });

  it('runs the full suite for runners whose ids cannot be mapped back to a selection', () => {
    expect(
      verificationCommands({ test: 'mvn -B test', failToPass: ['com.example.AppTest::adds'], heldOutFiles: [] }),
    ).toEqual({ failToPass: ['mvn -B test'], passToPass: [] });
    // ava names a file relative to the folder all its files share, and none for one file; tape and QUnit name none.
    const heldOutFiles = [file('test/a.test.js')];
    for (const test of [
      'node_modules/.bin/ava',
      "node_modules/.bin/tape 'test/*.js'",
      'node_modules/.bin/qunit',
      'node_modules/.bin/lab -a @hapi/code',
    ])
      expect(verificationCommands({ test, failToPass: ['a › adds', 'adds'], heldOutFiles })).toEqual({
        failToPass: [test],
        passToPass: [],
      });
  });

  it('quotes what parseCommandLine would otherwise misread', () => {
    const path = "tests/it's here/test_x.py";
    const commands = verificationCommands({
      test: "A='1 2' pytest -q",
      failToPass: [`${path}::test_y`],
      heldOutFiles: [file(path)],
    });
    expect(parseCommandLine(commands.failToPass[0] ?? '')).toEqual({ env: { A: '1 2' }, argv: ['pytest', '-q', path] });
  });
});
