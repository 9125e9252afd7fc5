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
  /** Constraint files (`-c`), by their path in the repository: they bound the packages' versions. */
  constraints: string[];
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
/** How long a value may grow, and how many references may be followed in it, before it is given up. */
const MAX_EXPANDED_CHARS = 65_536;
const MAX_SUBSTITUTIONS = 1_000;
/** pip's options that take the next word as their value: that word is never a package. */
const VALUE_OPTIONS = new Set([
  '-i',
  '--index-url',
  '--extra-index-url',
  '-f',
  '--find-links',
  '--progress-bar',
  '--upgrade-strategy',
  '-C',
  '--config-settings',
  '-t',
  '--target',
  '--prefix',
  '--root',
  '--src',
  '--global-option',
  '--install-option',
  '--platform',
  '--python-version',
  '--implementation',
  '--abi',
  '--no-binary',
  '--only-binary',
  '--trusted-host',
  '--proxy',
  '--retries',
  '--timeout',
  '--cache-dir',
  '--log',
  '--exists-action',
  '--report',
  '--hash',
  '--group',
]);
const NAME = /^[A-Za-z0-9_.-]+$/;

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
    const value = (key: string) => expand(base.get(key) ?? '', sections) ?? '';
    return collect(
      {
        deps: lines(value('deps')),
        extras: lines(value('extras')).flatMap((line) => line.split(',')),
        groups: lines(value('dependency_groups')).flatMap((line) => line.split(',')),
        commands: lines(value('commands').replaceAll('{envpython}', 'python')).map((line) => line.split(/\s+/)),
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
      // Each command is already a list of words.
      commands: Array.isArray(native['commands']) ? native['commands'].map(strings) : [],
    },
    isFile,
  );
}

function collect(
  found: { deps: string[]; extras: string[]; groups: string[]; commands: string[][] },
  isFile: (path: string) => boolean,
): ToxTestDeps {
  const deps: ToxTestDeps = { extras: [], groups: [], requirements: [], constraints: [], packages: [] };
  const add = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const extra of found.extras.map((name) => name.trim()).filter((name) => NAME.test(name)))
    add(deps.extras, extra);
  for (const group of found.groups.map((name) => name.trim()).filter((name) => NAME.test(name)))
    add(deps.groups, group);
  const take = (words: readonly string[]) => {
    for (let index = 0; index < words.length; index += 1) {
      const word = unquote(words[index] as string);
      const option = /^(-r|--requirement|-c|--constraint|-e|--editable)(?:=?)(.*)$/.exec(word);
      if (option !== null) {
        const next = option[2] !== '' ? option[2] : words[(index += 1)];
        if (next === undefined) continue;
        const value = unquote(next);
        const kind = option[1] as string;
        if (kind === '-e' || kind === '--editable') {
          // The project itself, editable: its extras come with it. Anything else editable (a folder, a VCS URL) is not
          // a package of the registries.
          extrasOfProject(value)?.forEach((extra) => add(deps.extras, extra));
          continue;
        }
        const path = repositoryPath(value);
        const list = kind === '-r' || kind === '--requirement' ? deps.requirements : deps.constraints;
        if (path !== null && isFile(path)) add(list, path);
        continue;
      }
      if (word.startsWith('-')) {
        // An option with its value in the next word: that word is the option's, never a package.
        if (VALUE_OPTIONS.has(word)) index += 1;
        continue;
      }
      const extras = extrasOfProject(word);
      if (extras !== null) {
        extras.forEach((extra) => add(deps.extras, extra));
        continue;
      }
      const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(word)?.[0]?.toLowerCase();
      if (REQUIREMENT.test(word) && name !== undefined && !RUNNER_TOOLS.has(name)) add(deps.packages, word);
    }
  };
  for (const dep of found.deps)
    take(dep.includes(' ') && !/[<>=!~;]/.test(dep) ? dep.trim().split(/\s+/) : [dep.trim()]);
  // `pip install -e .[d]`, `python -m pip install -r requirements/test.txt`: what the test commands install first.
  for (const words of found.commands) {
    const at = words.findIndex((word, index) => word === 'install' && /(^|\/)pip3?$/.test(words[index - 1] ?? ''));
    if (at >= 0) take(words.slice(at + 1));
  }
  return deps;
}

/** A word without the quotes a command line or an ini value put around it. */
function unquote(word: string): string {
  return word.replace(/^(["'])(.*)\1$/, '$2');
}

/** The extras of the project itself (`.`, `./`, `.[a,b]`, `{toxinidir}[a]`), or null for another word. */
function extrasOfProject(word: string): string[] | null {
  const project = /^(?:\.\/?|\{toxinidir\}\/?|\{tox_root\}\/?)(?:\[([^\]]*)\])?$/.exec(word);
  if (project === null) return null;
  return (project[1] ?? '')
    .split(',')
    .map((extra) => extra.trim())
    .filter((extra) => NAME.test(extra));
}

/** A relative path inside the repository, `{toxinidir}/` and `./` taken off; null for one that leaves it. */
function repositoryPath(path: string): string | null {
  const relative = path.replace(/^\{(toxinidir|tox_root)\}\/?/, '').replace(/^(\.\/)+/, '');
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
    .filter(
      (line) =>
        line !== '' && !/^[A-Za-z0-9_.,!{}-]+:\s/.test(line) && !/\{(?!(toxinidir|tox_root)\})[^}]*\}/.test(line),
    );
}

/** `{[section]key}` replaced by that value, as tox does; `{toxinidir}` and `{tox_root}` are kept for repositoryPath. */
function expand(value: string, sections: ReadonlyMap<string, ReadonlyMap<string, string>>): string | null {
  // A hostile configuration can reference a value many times over at every level: both the substitutions made and the
  // text they make are bounded, and a value past either bound is given up whole.
  let substitutions = 0;
  const at = (text: string, depth: number): string => {
    if (depth >= MAX_REFERENCE_DEPTH) return text;
    let grown = text.length;
    return text.replace(/\{\[([^\]]+)\]([A-Za-z0-9_]+)\}/g, (reference, section: string, key: string) => {
      const referred = sections.get(section.trim())?.get(key);
      if (referred === undefined) return reference;
      if ((substitutions += 1) > MAX_SUBSTITUTIONS) throw new TooLarge();
      const expanded = at(referred, depth + 1);
      if ((grown += expanded.length) > MAX_EXPANDED_CHARS) throw new TooLarge();
      return expanded;
    });
  };
  try {
    return at(value, 0);
  } catch (error) {
    if (error instanceof TooLarge) return null;
    throw error;
  }
}

class TooLarge extends Error {}

/** An INI file as tox reads it: sections of keys, a value going on over the indented lines after its key. */
function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\[([^\]]+)\]\s*([#;].*)?$/.exec(raw);
    if (header !== null) {
      section = new Map();
      sections.set((header[1] as string).trim(), section);
      key = undefined;
    } else if (/^\s*([#;].*)?$/.test(raw) || section === undefined) {
      // Comments and blank lines: a value goes on past them, as configparser reads it.
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
