// What a Python project's tox configuration installs for its tests, beside the project itself: the base test
// environment's `deps` (packages and `-r` requirement files), `extras`, `dependency_groups`, and the `pip install` lines
// of its `commands`. Read from `tox.ini`, from `legacy_tox_ini` in pyproject.toml, or from pyproject's native
// `[tool.tox.env_run_base]`. Only the base environment counts: it is what `tox` runs for each Python of its env list.
// A line that tox would take only under some factors (`py312: pkg`), or that names a substitution abp cannot resolve,
// is left out rather than guessed; so is anything that is not a plain requirement or a file of the repository, since
// each becomes a word of an install command.
import { table } from './toml.js';

export interface ToxTestDeps {
  extras: string[];
  groups: string[];
  /** Requirement files, by their path in the repository. */
  requirements: string[];
  /** Requirement specifiers (`pytest-mock>=3`, `Twisted[http2]`), for one `pip install`. */
  packages: string[];
}

/** A requirement by name from PyPI: name, extras, version and markers; never a URL, a path or an option. */
const REQUIREMENT =
  /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9_.,\s-]*\])?\s*([<>=!~][A-Za-z0-9.*+!<>=~,\s]*)?(;[^@]*)?$/;
/** Tools that run tox's environments rather than the tests: never installed into the suite's virtualenv. */
const RUNNER_TOOLS = new Set(['tox', 'nox', 'poetry', 'pip', 'uv']);
/** How deep `{[section]key}` references are followed: tox configurations nest two or three. */
const MAX_REFERENCE_DEPTH = 5;

/** `isFile` says whether a path is a file of the repository: only those may be installed as requirement files. */
export function toxTestDeps(
  toxIni: string | undefined,
  pyproject: Readonly<Record<string, unknown>>,
  isFile: (path: string) => boolean,
): ToxTestDeps | null {
  const tox = table(table(pyproject, 'tool'), 'tox');
  const legacy = typeof tox['legacy_tox_ini'] === 'string' ? tox['legacy_tox_ini'] : undefined;
  const ini = toxIni ?? legacy;
  if (ini !== undefined) {
    const sections = parseIni(ini);
    const base = sections.get('testenv');
    if (base === undefined) return null;
    const value = (key: string) => expand(base.get(key) ?? '', sections, 0);
    return collect(
      {
        deps: lines(value('deps')),
        extras: lines(value('extras')).flatMap((line) => line.split(',')),
        groups: lines(value('dependency_groups')).flatMap((line) => line.split(',')),
        commands: lines(value('commands')),
      },
      isFile,
    );
  }
  const native = table(tox, 'env_run_base');
  if (Object.keys(native).length === 0) return null;
  return collect(
    {
      deps: strings(native['deps']),
      extras: strings(native['extras']),
      groups: strings(native['dependency_groups']),
      commands: Array.isArray(native['commands'])
        ? native['commands'].map((command) => strings(command).join(' '))
        : [],
    },
    isFile,
  );
}

function collect(
  found: { deps: string[]; extras: string[]; groups: string[]; commands: string[] },
  isFile: (path: string) => boolean,
): ToxTestDeps {
  const deps: ToxTestDeps = { extras: [], groups: [], requirements: [], packages: [] };
  const add = (list: string[], item: string) => {
    if (item !== '' && !list.includes(item)) list.push(item);
  };
  for (const extra of found.extras) if (/^[A-Za-z0-9_.-]+$/.test(extra.trim())) add(deps.extras, extra.trim());
  for (const group of found.groups) if (/^[A-Za-z0-9_.-]+$/.test(group.trim())) add(deps.groups, group.trim());
  const take = (words: string[]) => {
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as string;
      const joined = /^(-r|--requirement=?)(.+)$/.exec(word);
      const file = joined?.[2] ?? (['-r', '--requirement'].includes(word) ? words[(index += 1)] : undefined);
      if (file !== undefined) {
        const path = repositoryPath(file);
        if (path !== null && isFile(path)) add(deps.requirements, path);
        continue;
      }
      if (word === '-e' || word === '--editable') continue;
      // The project itself, with extras: those extras are installed with it.
      const project = /^\.\/?(?:\[([^\]]*)\])?$/.exec(word);
      if (project !== null) {
        for (const extra of (project[1] ?? '').split(',')) if (extra.trim() !== '') add(deps.extras, extra.trim());
        continue;
      }
      if (word.startsWith('-')) continue;
      const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(word)?.[0]?.toLowerCase();
      if (REQUIREMENT.test(word) && name !== undefined && !RUNNER_TOOLS.has(name)) add(deps.packages, word);
    }
  };
  for (const dep of found.deps) take(dep.includes(' ') && !/[<>=!~;]/.test(dep) ? dep.split(/\s+/) : [dep.trim()]);
  // `pip install -e .[d]`, `python -m pip install -r requirements/test.txt`: what the test commands install first.
  for (const command of found.commands) {
    const words = command.trim().split(/\s+/);
    const at = words.findIndex((word, index) => word === 'install' && /(^|\/)pip3?$/.test(words[index - 1] ?? ''));
    if (at >= 0) take(words.slice(at + 1));
  }
  return deps;
}

/** A relative path inside the repository, `{toxinidir}/` and `./` taken off; null for one that leaves it. */
function repositoryPath(path: string): string | null {
  const relative = path.replace(/^\{toxinidir\}\/?/, '').replace(/^(\.\/)+/, '');
  if (relative === '' || relative.startsWith('/') || relative.split('/').includes('..') || /[{}]/.test(relative))
    return null;
  return relative;
}

/**
 * The lines of a value that apply to every environment: comments and blank lines dropped, and lines that apply only
 * under some factors (`py312: pkg`, `3.10,3.11: -r …`) or that hold a substitution still unresolved left out.
 */
function lines(value: string): string[] {
  return value
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '' && !/^[A-Za-z0-9_.,!{}-]+:\s/.test(line) && !/\{(?!toxinidir\})[^}]*\}/.test(line));
}

/** `{[section]key}` replaced by that value, as tox does; `{toxinidir}` is kept for repositoryPath. */
function expand(value: string, sections: ReadonlyMap<string, ReadonlyMap<string, string>>, depth: number): string {
  if (depth >= MAX_REFERENCE_DEPTH) return value;
  return value.replace(/\{\[([^\]]+)\]([A-Za-z0-9_]+)\}/g, (reference, section: string, key: string) => {
    const referred = sections.get(section.trim())?.get(key);
    return referred === undefined ? reference : expand(referred, sections, depth + 1);
  });
}

/** An INI file as tox reads it: sections of keys, a value going on over the indented lines after its key. */
function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\[([^\]]+)\]\s*$/.exec(raw);
    if (header !== null) {
      section = new Map();
      sections.set((header[1] as string).trim(), section);
      key = undefined;
    } else if (/^\s*[#;]/.test(raw) || section === undefined) {
      continue;
    } else if (/^\s/.test(raw) && key !== undefined) {
      section.set(key, `${section.get(key) ?? ''}\n${raw.trim()}`);
    } else {
      const entry = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/.exec(raw);
      key = entry?.[1];
      if (entry !== null && key !== undefined) section.set(key, (entry[2] as string).trim());
    }
  }
  return sections;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
