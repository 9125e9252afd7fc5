import { describe, expect, it } from 'vitest';
import { classifyChange, classifyPath, isGeneratedContent, type PathKind } from '../../src/diff/paths.js';

describe('classifyPath defaults', () => {
  it.each<[string, PathKind]>([
    // Test folders, at any depth.
    ['tests/test_parser.py', 'test'],
    ['pkg/test/helpers.js', 'test'],
    ['src/__tests__/router.tsx', 'test'],
    ['spec/models/user_spec.rb', 'test'],
    ['spec/support/helpers.rb', 'test'],
    ['internal/lexer/testdata/input.golden', 'test'],
    ['src/__snapshots__/app.test.ts.snap', 'test'],
    ['src/test/java/com/acme/Util.java', 'test'],
    ['src/test/resources/fixture.json', 'test'],
    ['tests/integration.rs', 'test'],
    // Test files by name.
    ['pkg/test_utils.py', 'test'],
    ['pkg/utils_test.py', 'test'],
    ['conftest.py', 'test'],
    ['internal/lexer/lexer_test.go', 'test'],
    ['src/router.test.ts', 'test'],
    ['src/router.test.mjs', 'test'],
    ['src/button.spec.tsx', 'test'],
    ['core/src/main/java/com/acme/ParserTest.java', 'test'],
    ['core/src/main/java/com/acme/ParserTests.java', 'test'],
    ['core/src/main/java/com/acme/ParserIT.java', 'test'],
    ['lib/models/user_spec.rb', 'test'],
    // Not tests.
    ['src/testing.py', 'code'],
    ['src/contest.go', 'code'],
    ['src/latest.ts', 'code'],
    ['docs/api.spec.yaml', 'code'],
    ['src/attestation/index.ts', 'code'],
    ['benches/parse.rs', 'code'],
    ['src/main/java/com/acme/Parser.java', 'code'],
    // Lockfiles.
    ['package-lock.json', 'lockfile'],
    ['packages/web/yarn.lock', 'lockfile'],
    ['pnpm-lock.yaml', 'lockfile'],
    ['bun.lockb', 'lockfile'],
    ['Cargo.lock', 'lockfile'],
    ['go.sum', 'lockfile'],
    ['poetry.lock', 'lockfile'],
    ['Pipfile.lock', 'lockfile'],
    ['uv.lock', 'lockfile'],
    ['Gemfile.lock', 'lockfile'],
    ['composer.lock', 'lockfile'],
    ['gradle.lockfile', 'lockfile'],
    ['npm-shrinkwrap.json', 'lockfile'],
    ['package.json', 'code'],
    ['go.mod', 'code'],
    // Generated.
    ['public/app.min.js', 'generated'],
    ['public/app.min.css', 'generated'],
    ['public/app.js.map', 'generated'],
    ['api/v1/service.pb.go', 'generated'],
    ['proto/service_pb2.py', 'generated'],
    ['proto/service_pb2_grpc.py', 'generated'],
    ['vendor/github.com/pkg/errors/errors.go', 'generated'],
    ['web/node_modules/left-pad/index.js', 'generated'],
    // Vendored code stays excluded even when it holds tests.
    ['vendor/github.com/pkg/errors/errors_test.go', 'generated'],
    // dist/ and build/ are code by default (see paths.ts).
    ['dist/index.js', 'code'],
    ['build/config.py', 'code'],
    // A test folder wins over a lockfile name: fixtures are test data.
    ['test/fixtures/app/package-lock.json', 'test'],
    ['src/main.rs', 'code'],
  ])('%s is %s', (path, kind) => {
    expect(classifyPath(path)).toBe(kind);
  });
});

describe('classifyPath: documentation is not code (one rule for golden and engine diffs)', () => {
  it.each<[string, PathKind]>([
    // Changelogs by name, in any case, with no extension or a document's.
    ['CHANGELOG.rst', 'docs'],
    ['CHANGELOG.md', 'docs'],
    ['changelog', 'docs'],
    ['Changelog.txt', 'docs'],
    ['CHANGELOG-1.x.md', 'docs'],
    ['packages/core/CHANGELOG.md', 'docs'],
    ['CHANGES', 'docs'],
    ['CHANGES.rst', 'docs'],
    ['HISTORY.md', 'docs'],
    ['History.rst', 'docs'],
    ['NEWS', 'docs'],
    ['NEWS.adoc', 'docs'],
    ['RELEASE_NOTES.md', 'docs'],
    ['release-notes.txt', 'docs'],
    ['RELEASENOTES.md', 'docs'],
    ['README', 'docs'],
    ['README.md', 'docs'],
    ['readme.rst', 'docs'],
    ['README.zh-CN.md', 'docs'],
    ['lib/widgets/README.markdown', 'docs'],
    // Documents under doc folders and changelog fragment folders, in any case.
    ['docs/guide.md', 'docs'],
    ['docs/api/reference.rst', 'docs'],
    ['doc/usage.txt', 'docs'],
    ['Doc/library/json.rst', 'docs'],
    ['DOCS/Index.MD', 'docs'],
    ['packages/web/docs/intro.mdx', 'docs'],
    ['changelog/1234.bugfix.rst', 'docs'],
    ['changelog.d/20240101_fix.md', 'docs'],
    ['Misc/NEWS.d/next/Library/2024-01-01.gh-issue-1.rst', 'docs'],
    ['newsfragments/99.feature.rst', 'docs'],
    ['.changeset/brave-owls.md', 'docs'],
    // Code that shares a changelog's name or sits in a doc folder without a document's extension stays code.
    ['src/history.py', 'code'],
    ['pkg/news/news.go', 'code'],
    ['lib/changes.ts', 'code'],
    ['README.py', 'code'],
    ['docs/conf.py', 'code'],
    ['docs/Makefile', 'code'],
    ['docs/api.spec.yaml', 'code'],
    ['src/doc.go', 'code'],
    // Tests come first: a readme among the tests is test material, held out with them.
    ['tests/README.md', 'test'],
    ['docs/tests/example.md', 'test'],
  ])('%s is %s', (path, kind) => {
    expect(classifyPath(path)).toBe(kind);
  });
});

describe('classifyPath with repository rules', () => {
  it('generated globs win over everything, anchored when they contain a slash', () => {
    const rules = { generated: ['dist/', 'src/gen/**/*.ts'] };
    expect(classifyPath('dist/index.js', rules)).toBe('generated');
    expect(classifyPath('dist/test/index.test.js', rules)).toBe('generated');
    expect(classifyPath('packages/a/dist/index.js', rules)).toBe('code');
    expect(classifyPath('src/gen/api.ts', rules)).toBe('generated');
    expect(classifyPath('src/gen/deep/er/api.ts', rules)).toBe('generated');
    expect(classifyPath('src/gen/api.js', rules)).toBe('code');
  });

  it('test globs add test paths; a glob without a slash matches the file name at any depth', () => {
    const rules = { test: ['e2e/**', 'check_*.py'] };
    expect(classifyPath('e2e/login.ts', rules)).toBe('test');
    expect(classifyPath('tools/check_format.py', rules)).toBe('test');
    expect(classifyPath('tools/format_check.py', rules)).toBe('code');
  });

  it('notTest globs turn the default test rules off, and ? matches one character', () => {
    const rules = { notTest: ['src/test/**', 'spec/?.md'] };
    expect(classifyPath('src/test/helpers.py', rules)).toBe('code');
    expect(classifyPath('spec/a.md', rules)).toBe('code');
    expect(classifyPath('spec/ab.md', rules)).toBe('test');
    expect(classifyPath('tests/test_x.py', rules)).toBe('test');
  });

  it('* stays within a segment; regex characters in globs are literal', () => {
    expect(classifyPath('a/b/c.py', { test: ['a/*.py'] })).toBe('code');
    expect(classifyPath('a/c.py', { test: ['a/*.py'] })).toBe('test');
    expect(classifyPath('axpy', { test: ['a.py'] })).toBe('code');
    expect(classifyPath('lib/x+y(1).c', { generated: ['x+y(1).c'] })).toBe('generated');
  });
});

describe('classifyChange', () => {
  it('calls a rename a test when either path is one', () => {
    expect(classifyChange({ path: 'src/helper.py', oldPath: 'tests/test_helper.py' })).toBe('test');
    expect(classifyChange({ path: 'tests/test_helper.py', oldPath: 'src/helper.py' })).toBe('test');
    expect(classifyChange({ path: 'src/b.py', oldPath: 'src/a.py' })).toBe('code');
    expect(classifyChange({ path: 'go.sum', oldPath: null })).toBe('lockfile');
  });

  it('calls a rename docs only when both paths are: moving code into docs/ still removes code', () => {
    expect(classifyChange({ path: 'docs/old-guide.md', oldPath: 'docs/guide.md' })).toBe('docs');
    expect(classifyChange({ path: 'docs/history.md', oldPath: 'CHANGELOG.md' })).toBe('docs');
    expect(classifyChange({ path: 'docs/helper.md', oldPath: 'src/helper.py' })).toBe('code');
    expect(classifyChange({ path: 'src/readme.py', oldPath: 'README.md' })).toBe('code');
  });
});

describe('isGeneratedContent', () => {
  it.each([
    ['// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n', true],
    ['// Copyright 2024\n\n// Code generated by stringer -type=Kind; DO NOT EDIT.\n\npackage kind\n', true],
    ['/**\n * @generated SignedSource<<abc>>\n */\nexport {};\n', true],
    ['# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n', true],
    ['// <auto-generated />\nnamespace X {}\n', true],
    ['package main\n\nfunc main() {}\n', false],
    ['// This code is generated with care. Do edit it.\n', false],
    [`${'x\n'.repeat(1100)}// @generated\n`, false],
  ])('%j → %s', (text, generated) => {
    expect(isGeneratedContent(text)).toBe(generated);
  });
});
