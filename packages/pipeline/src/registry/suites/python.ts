// Python suites: pytest wherever the project configures or depends on it (pytest.ini, [tool.pytest…] in
// pyproject.toml, [tool:pytest] in setup.cfg, [pytest] in tox.ini, a conftest.py), else unittest, which pytest runs and
// names as it names its own; installed with the project's test extras, dependency groups and test requirements, and
// what its tox test environment installs, so the suite has what it imports, from its uv.lock or poetry.lock where it
// commits one. Run by pytest, read by its JUnit XML with node ids (the freeze's pytest plan).
import { isOwnTestPath, type RepoTree } from './repo-tree.js';
import { commandLine } from './script-words.js';
import { runnable, type SuiteCandidate } from './suite.js';
import { readToml, table } from './toml.js';
import { toxTestDeps } from './tox.js';

const TEST_FILE = /(^|\/)(test_[^/]*|[^/]*_test)\.py$|(^|\/)tests?\/.*\.py$/;
/** Extras and dependency groups that hold what the tests need, by the names projects give them. */
const TEST_SETS = ['test', 'tests', 'testing', 'dev'];

export function detectPython(tree: RepoTree): SuiteCandidate | null {
  const present = (path: string) => tree.paths.includes(path);
  if (!['pyproject.toml', 'setup.py', 'setup.cfg'].some(present)) return null;
  const pyproject = tree.text('pyproject.toml') ?? '';
  const setupCfg = tree.text('setup.cfg') ?? '';
  const toxIni = tree.text('tox.ini') ?? '';
  const testFiles = tree.paths.filter((path) => isOwnTestPath(path) && TEST_FILE.test(path)).length;
  const requirements = tree.paths.filter(isTestRequirements);
  const mentionsPytest =
    present('pytest.ini') ||
    /^\[tool\.pytest(\.ini_options)?\]/m.test(pyproject) ||
    /^\[tool:pytest\]/m.test(setupCfg) ||
    /^\[pytest\]/m.test(toxIni) ||
    tree.paths.some((path) => isOwnTestPath(path) && /(^|\/)conftest\.py$/.test(path)) ||
    /\bpytest\b/.test(pyproject) ||
    /\bpytest\b/.test(toxIni) ||
    requirements.some((path) => /\bpytest\b/.test(tree.text(path) ?? ''));
  const packageManager =
    present('uv.lock') || /^\[tool\.uv\]/m.test(pyproject)
      ? 'uv'
      : present('poetry.lock') || /^\[tool\.poetry\]/m.test(pyproject)
        ? 'poetry'
        : present('pdm.lock')
          ? 'pdm'
          : /^\[tool\.hatch\.envs/m.test(pyproject)
            ? 'hatch'
            : 'pip';

  const manifest = readToml(pyproject);
  const poetry = table(table(manifest, 'tool'), 'poetry');
  // Poetry declares extras and groups in tables of its own as well as the standard ones.
  const declaredExtras = [
    ...Object.keys(table(table(manifest, 'project'), 'optional-dependencies')),
    ...Object.keys(table(poetry, 'extras')),
  ];
  const tox = toxTestDeps(tree.text('tox.ini'), manifest, present);
  // The test sets by name, then those the tox test environment asks for; uv and poetry refuse one the project does not
  // declare, pip only warns, and a setup.py declares its extras where abp does not read them.
  // Names compare as the tools compare them: case and the runs of `-_.` aside (PEP 685).
  const normal = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');
  const union = (named: string[], more: readonly string[] | undefined) => {
    const names = [...named.filter((key) => TEST_SETS.includes(normal(key))), ...(more ?? [])];
    return names.filter((name, index) => names.findIndex((other) => normal(other) === normal(name)) === index);
  };
  const lock =
    present('uv.lock') && packageManager === 'uv'
      ? 'uv'
      : present('poetry.lock') && packageManager === 'poetry'
        ? 'poetry'
        : null;
  // Poetry's own groups are poetry's to install: pip and uv read only PEP 735's.
  const declaredGroups = [
    ...Object.keys(table(manifest, 'dependency-groups')),
    ...(lock === 'poetry' ? Object.keys(table(poetry, 'group')) : []),
  ];
  const declares = (names: readonly string[], name: string) =>
    names.some((declared) => normal(declared) === normal(name));
  const extras = union(declaredExtras, tox?.extras).filter((extra) => lock === null || declares(declaredExtras, extra));
  const groups = union(declaredGroups, tox?.groups).filter((group) => declares(declaredGroups, group));
  const constraints = (tox?.constraints ?? []).flatMap((path) => ['-c', path]);
  const requirementFiles = [...new Set([...requirements, ...(tox?.requirements ?? [])])];
  const install = [
    ...(lock === 'uv'
      ? uvSync(manifest, extras, groups)
      : lock === 'poetry'
        ? poetryInstall(poetry, extras, groups)
        : [
            // PEP 735 groups: pip installs them since 25.1, newer than the pip a Debian virtualenv starts with.
            ...(groups.length > 0 ? [commandLine(['python', '-m', 'pip', 'install', 'pip>=25.1'])] : []),
            commandLine([
              'python',
              '-m',
              'pip',
              'install',
              '-e',
              `.${extras.length > 0 ? `[${extras.join(',')}]` : ''}`,
            ]),
            ...groups.map((group) => commandLine(['python', '-m', 'pip', 'install', '--group', group])),
          ]),
    ...requirementFiles.map((path) => commandLine(['python', '-m', 'pip', 'install', '-r', path, ...constraints])),
    ...(tox !== null && tox.packages.length > 0
      ? [commandLine(['python', '-m', 'pip', 'install', ...constraints, ...tox.packages])]
      : []),
    // The runner itself, whether or not the project lists it (unittest suites do not).
    'python -m pip install pytest',
  ];
  return runnable(
    { ecosystem: 'python', packageManager, runners: [mentionsPytest ? 'pytest' : 'unittest'], testFiles },
    { install, test: 'python -m pytest', report: 'junit-xml' },
    'pytest',
  );
}

/** The uv abp installs when the project names none (`[tool.uv] required-version`). */
const UV_VERSION = '0.13.9';

/**
 * A uv.lock installed as it is: uv from PyPI into the environment's virtualenv, then `uv sync` of the locked versions
 * (`--frozen`: never re-resolved) into that same virtualenv (`--active`), with the test extras and groups (uv adds the
 * `dev` group itself); `--inexact` keeps uv, and whatever else the steps before put there, where a sync would remove
 * what the lock does not name. Without a lock, uv would resolve afresh as pip does, and pip installs it.
 */
function uvSync(
  manifest: Readonly<Record<string, unknown>>,
  extras: readonly string[],
  groups: readonly string[],
): string[] {
  const uv = toolRequirement('uv', table(table(manifest, 'tool'), 'uv')['required-version'], UV_VERSION);
  return [
    commandLine(['python', '-m', 'pip', 'install', uv]),
    commandLine([
      // An interpreter is the environment's, never one uv downloads.
      'UV_PYTHON_DOWNLOADS=never',
      ...['uv', 'sync', '--active', '--frozen', '--inexact', '--no-cache'],
      ...extras.flatMap((extra) => ['--extra', extra]),
      ...groups.flatMap((group) => ['--group', group]),
    ]),
  ];
}

/** The poetry abp installs when the project names none (`[tool.poetry] requires-poetry`). */
const POETRY_VERSION = '2.5.1';
/** Where poetry itself goes: a folder of the checkout that the environment does not keep, never the suite's virtualenv. */
const POETRY_DIR = '.abp-poetry';

/**
 * A poetry.lock installed as it is: poetry from PyPI into a folder of its own, run from there (`python -m poetry`) so
 * that none of its own dependencies lands in the suite's virtualenv, then `poetry install` of the locked versions into
 * the environment's virtualenv (the active one), with the test groups and extras the project declares, and the project
 * itself editable. A lock that no longer matches pyproject.toml fails the install, as it fails the project's CI.
 */
function poetryInstall(
  poetry: Readonly<Record<string, unknown>>,
  extras: readonly string[],
  groups: readonly string[],
): string[] {
  const version = toolRequirement('poetry', poetry['requires-poetry'], POETRY_VERSION);
  return [
    commandLine(['python', '-m', 'pip', 'install', '--target', POETRY_DIR, version]),
    commandLine([
      `PYTHONPATH=${POETRY_DIR}`,
      ...['python', '-m', 'poetry', 'install', '--no-interaction'],
      ...(groups.length > 0 ? ['--with', groups.join(',')] : []),
      ...extras.flatMap((extra) => ['--extras', extra]),
    ]),
  ];
}

/** The tool as pip installs it: the version the project requires (exact, or a range), else abp's own pin. */
function toolRequirement(name: string, required: unknown, pinned: string): string {
  const wanted = typeof required === 'string' ? required.trim() : '';
  return wanted === '' ? `${name}==${pinned}` : /^\d/.test(wanted) ? `${name}==${wanted}` : `${name}${wanted}`;
}

/** requirements-test.txt, test-requirements.txt, requirements/tests.txt: near the root, where projects keep them. */
export function isTestRequirements(path: string): boolean {
  return (
    path.split('/').length <= 2 &&
    /(^|\/)(requirements[^/]*test[^/]*|test[^/]*requirements[^/]*|requirements\/(test|tests|testing|dev)[^/]*)\.txt$/i.test(
      path,
    )
  );
}
