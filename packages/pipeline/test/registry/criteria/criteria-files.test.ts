// The committed criteria and overrides files load, name the suite detection they judge by, and a broken file fails
// with its error code, the file and the field at fault.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriteriaError, type CriteriaErrorCode } from '../../../src/registry/criteria/errors.js';
import { DEFAULT_CRITERIA_FILE, loadCriteria } from '../../../src/registry/criteria/load.js';
import { REGISTRY_THRESHOLDS } from '@abp/github-sim/world/criteria';
import { SUITE_DETECTION } from '../../../src/registry/suites/suite.js';

let dir: string;
let committed: Record<string, unknown>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-criteria-'));
  committed = JSON.parse(await readFile(DEFAULT_CRITERIA_FILE, 'utf8')) as Record<string, unknown>;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let written = 0;
async function file(content: unknown): Promise<string> {
  const path = join(dir, `file-${written++}.json`);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** A deep copy of the committed criteria with the value at a dotted path set (an index one past the end appends). */
function criteriaWith(path: string, value: unknown): unknown {
  const copy = structuredClone(committed);
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let node = copy;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  node[last] = value;
  return copy;
}

const override = {
  repo: 'octo-org/Widget',
  reason: 'Tests run through make; detection cannot see them.',
  runner: { runner: 'make-test', ecosystem: 'node', install: 'npm ci', test: 'make test', report: 'junit-xml' },
};

async function failure(files: {
  criteria?: unknown;
  overrides?: unknown;
}): Promise<{ code: CriteriaErrorCode; file: string; field: string | undefined; message: string }> {
  const paths: { criteria?: string; overrides?: string } = {};
  if (files.criteria !== undefined) paths.criteria = await file(files.criteria);
  if (files.overrides !== undefined) paths.overrides = await file(files.overrides);
  const error: unknown = await loadCriteria(paths).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof CriteriaError)) throw new Error(`expected a CriteriaError, got ${String(error)}`);
  const expectedFile = files.criteria !== undefined ? paths.criteria : paths.overrides;
  expect(error.file).toBe(expectedFile);
  expect(error.message).toContain(error.file);
  return { code: error.code, file: error.file, field: error.field, message: error.message };
}

describe('the committed criteria', () => {
  it('load as abp-criteria/3 with the published thresholds, the freeze own suite detection and no overrides', async () => {
    const criteria = await loadCriteria();
    expect(criteria.version).toBe('abp-criteria/3');
    expect(criteria.thresholds).toEqual(REGISTRY_THRESHOLDS);
    expect(criteria.suiteDetection).toBe(SUITE_DETECTION);
    expect(criteria.overrides).toEqual([]);
  });

  it('take runner overrides from the overrides file', async () => {
    const overrides = await file({ version: 'abp-criteria-overrides/1', overrides: [override] });
    const criteria = await loadCriteria({ overrides });
    expect(criteria.overrides).toEqual([override]);
  });
});

describe('a broken criteria file', () => {
  it('that does not exist is unreadable', async () => {
    const missing = join(dir, 'no-such-criteria.json');
    const error = await loadCriteria({ criteria: missing }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(CriteriaError);
    expect((error as CriteriaError).code).toBe('file-unreadable');
    expect((error as CriteriaError).file).toBe(missing);
  });

  it('that is not JSON is invalid-json', async () => {
    expect(await failure({ criteria: '{ "version": "abp-criteria/1",' })).toMatchObject({
      code: 'invalid-json',
      field: undefined,
    });
  });

  it.each([
    ['a version without a number', 'version', 'abp-criteria/one', 'version'],
    ['a share above 1', 'thresholds.minLabeledOpenIssueShare', 1.5, 'thresholds.minLabeledOpenIssueShare'],
    ['a window of zero days', 'thresholds.mergedPullWindowDays', 0, 'thresholds.mergedPullWindowDays'],
    ['a misspelled threshold', 'thresholds.mergedPullWindow', 30, 'thresholds'],
    ['a bug pattern that is no regular expression', 'bugLabelPatterns.1', '(bug', 'bugLabelPatterns.1'],
    ['another suite detection', 'suiteDetection', 'abp-suites/0', 'suiteDetection'],
  ])('with %s is invalid-criteria at the field', async (_case, path, value, field) => {
    const error = await failure({ criteria: criteriaWith(path, value) });
    expect(error.code).toBe('invalid-criteria');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('that still holds the runner rules of abp-criteria/2 names them', async () => {
    const error = await failure({ criteria: criteriaWith('ecosystems', []) });
    expect(error.code).toBe('invalid-criteria');
    expect(error.message).toMatch(/Unrecognized key.*"ecosystems"/);
  });
});

describe('a broken overrides file', () => {
  it.each([
    ['another version', { version: 'abp-criteria-overrides/2', overrides: [] }, 'version'],
    [
      'a malformed repository',
      { version: 'abp-criteria-overrides/1', overrides: [{ ...override, repo: 'not a repo' }] },
      'overrides.0.repo',
    ],
    [
      'no reason',
      { version: 'abp-criteria-overrides/1', overrides: [{ ...override, reason: ' ' }] },
      'overrides.0.reason',
    ],
    [
      'an incomplete recipe',
      {
        version: 'abp-criteria-overrides/1',
        overrides: [{ ...override, runner: { ...override.runner, test: undefined } }],
      },
      'overrides.0.runner.test',
    ],
    [
      'a report format the freeze cannot read',
      {
        version: 'abp-criteria-overrides/1',
        overrides: [{ ...override, runner: { ...override.runner, report: 'xml' } }],
      },
      'overrides.0.runner.report',
    ],
    [
      'a two-line test command',
      {
        version: 'abp-criteria-overrides/1',
        overrides: [{ ...override, runner: { ...override.runner, test: 'make test\nrm -rf /' } }],
      },
      'overrides.0.runner.test',
    ],
    [
      'a repository twice',
      { version: 'abp-criteria-overrides/1', overrides: [override, { ...override, repo: 'OCTO-ORG/widget' }] },
      'overrides.1.repo',
    ],
  ])('with %s is invalid-overrides at the field', async (_case, document, field) => {
    const error = await failure({ overrides: document });
    expect(error.code).toBe('invalid-overrides');
    expect(error.field).toBe(field);
  });
});
