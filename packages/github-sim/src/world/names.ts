// Words for generated worlds: logins, repository names, and the titles and bodies of issues, pull
// requests and comments. Texts read like their kind (a question asks, a feature debate argues) so
// the draw's eligibility rules have something real to classify; the kind itself stays ground truth.

import type { IssueKind } from './model.js';
import type { Rng } from './random.js';

const loginHeads = [
  'ada',
  'bel',
  'cor',
  'dan',
  'eli',
  'fin',
  'gra',
  'hal',
  'iri',
  'jun',
  'kai',
  'lio',
  'mar',
  'nor',
  'oli',
  'pia',
  'quin',
  'ros',
  'sam',
  'tev',
  'uma',
  'vic',
  'wen',
  'xan',
  'yul',
  'zed',
  'ari',
  'bo',
  'cyr',
  'dax',
];
const loginTails = [
  'son',
  'ix',
  'ara',
  'dev',
  'labs',
  'io',
  'hq',
  'works',
  'berg',
  'ton',
  'ley',
  'ski',
  'ova',
  'ich',
  'man',
  'ren',
  'tek',
  'ops',
  'ai',
  'soft',
];

export const adjectives = [
  'fast',
  'tiny',
  'lazy',
  'quick',
  'micro',
  'hyper',
  'open',
  'smart',
  'pure',
  'deep',
  'async',
  'super',
  'simple',
  'mini',
  'auto',
  'red',
  'blue',
  'iron',
  'swift',
  'nano',
  'safe',
  'lean',
  'bright',
  'solid',
];
export const nouns = [
  'parser',
  'router',
  'cache',
  'queue',
  'logger',
  'client',
  'server',
  'store',
  'query',
  'schema',
  'bundler',
  'linter',
  'formatter',
  'scheduler',
  'tracer',
  'proxy',
  'crawler',
  'validator',
  'renderer',
  'compiler',
  'runtime',
  'toolkit',
  'sdk',
  'cli',
  'db',
  'engine',
  'widget',
  'grid',
  'chart',
  'sync',
  'auth',
  'mailer',
];
const things = [
  'unicode input',
  'an empty config',
  'nested arrays',
  'a trailing slash',
  'large files',
  'Windows paths',
  'concurrent requests',
  'a missing env var',
  'IPv6 addresses',
  'symlinks',
  'daylight saving time',
  'a null value',
  'long lines',
  'the --watch flag',
  'a custom plugin',
  'ESM imports',
];
const verbs = [
  'parse',
  'configure',
  'cancel',
  'retry',
  'stream',
  'serialize',
  'cache',
  'validate',
  'log',
  'extend',
  'override',
  'disable',
  'migrate',
  'bundle',
];
const symptoms = [
  'crashes',
  'hangs',
  'returns the wrong result',
  'throws a TypeError',
  'leaks memory',
  'drops the last item',
  'ignores the timeout',
  'panics',
  'produces invalid output',
  'double-encodes the payload',
];
const dependencies = [
  'lodash',
  'serde',
  'requests',
  'golang.org/x/net',
  'junit',
  'typescript',
  'tokio',
  'pytest',
  'eslint',
  'jackson-databind',
];

export function makeLogin(rng: Rng): string {
  const head = rng.pick(loginHeads);
  const tail = rng.pick(loginTails);
  const style = rng.int(4);
  if (style === 0) return `${head}${tail}`;
  if (style === 1) return `${head}-${tail}${rng.int(100)}`;
  if (style === 2)
    return `${head[0]?.toUpperCase() ?? ''}${head.slice(1)}${tail[0]?.toUpperCase() ?? ''}${tail.slice(1)}`;
  return `${head}${tail}${rng.between(1, 9999)}`;
}

export function makeRepoName(rng: Rng, noun: string): string {
  const adjective = rng.pick(adjectives);
  switch (rng.int(5)) {
    case 0:
      return `${adjective}-${noun}`;
    case 1:
      return `${adjective[0]?.toUpperCase() ?? ''}${adjective.slice(1)}${noun[0]?.toUpperCase() ?? ''}${noun.slice(1)}`;
    case 2:
      return `${noun}.${rng.pick(['js', 'py', 'go', 'rs', 'kt'])}`;
    case 3:
      return `${adjective}_${noun}`;
    default:
      return `${noun}-${rng.pick(['core', 'kit', 'next', 'lite', 'tools', 'plus'])}`;
  }
}

export function describeRepo(rng: Rng, noun: string, language: string | null): string | null {
  if (rng.chance(0.08)) return null;
  const adjective = rng.pick(adjectives);
  return language === null ? `Notes and docs about a ${adjective} ${noun}` : `A ${adjective} ${noun} for ${language}`;
}

export interface Text {
  title: string;
  body: string;
}

export function issueText(rng: Rng, kind: IssueKind, topic: string): Text {
  const thing = rng.pick(things);
  const verb = rng.pick(verbs);
  const version = `${rng.int(5)}.${rng.int(20)}.${rng.int(10)}`;
  switch (kind) {
    case 'bug': {
      const symptom = rng.pick(symptoms);
      return {
        title: `${topic} ${symptom} with ${thing}`,
        body: `### Describe the bug\nThe ${topic} ${symptom} when given ${thing}.\n\n### Steps to reproduce\n1. Install version ${version}\n2. ${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)} ${thing}\n3. See the error\n\n### Expected behavior\nIt should ${verb} ${thing} without errors.\n\n### Version\n${version}`,
      };
    }
    case 'feature':
      return {
        title: `Support ${thing} in the ${topic}`,
        body: `It would be useful if the ${topic} could ${verb} ${thing}. Today we work around it by hand.\n\nProposed API: an option \`${verb}${rng.pick(['Mode', 'Strategy', 'Hook'])}\`.`,
      };
    case 'question':
      return {
        title: rng.chance(0.5)
          ? `How do I ${verb} ${thing}?`
          : `Question: is it possible to ${verb} ${thing} with the ${topic}?`,
        body: `I'm new to this ${topic}. How can I ${verb} ${thing}? I read the docs but could not find an example. Any pointers appreciated!`,
      };
    case 'feature-debate':
      return {
        title: rng.chance(0.5)
          ? `RFC: should the ${topic} ${verb} ${thing} by default?`
          : `Discussion: rethink how we ${verb} ${thing}`,
        body: `Opening this to collect opinions before anyone writes code.\n\nPros: simpler for new users.\nCons: breaking change for existing setups.\n\nThoughts?`,
      };
    case 'chore':
      return rng.chance(0.5)
        ? {
            title: `Update ${rng.pick(dependencies)} to ${version}`,
            body: `Keep dependencies current; no behavior change expected.`,
          }
        : {
            title: `Clean up the ${topic} ${rng.pick(['README', 'CI matrix', 'changelog', 'examples'])}`,
            body: `Housekeeping: the docs drifted from the code.`,
          };
  }
}

export function pullText(
  rng: Rng,
  kind: 'fix' | 'feature' | 'bump' | 'docs',
  topic: string,
): Text & { branch: string } {
  const thing = rng.pick(things);
  const slug = thing.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  switch (kind) {
    case 'fix':
      return {
        title: `Fix ${topic} handling of ${thing}`,
        body: `The ${topic} mishandled ${thing}; this fixes it and adds a regression test.`,
        branch: `fix/${slug}`,
      };
    case 'feature':
      return {
        title: `Add support for ${thing}`,
        body: `Implements support for ${thing} in the ${topic}.`,
        branch: `feat/${slug}`,
      };
    case 'bump': {
      const dependency = rng.pick(dependencies);
      const from = `${rng.int(5)}.${rng.int(20)}.${rng.int(10)}`;
      return {
        title: `Bump ${dependency} from ${from} to ${from.replace(/\d+$/, (patch) => String(Number(patch) + 1))}`,
        body: `Bumps ${dependency}.\n\nDependabot will resolve any conflicts with this PR as long as you don't alter it yourself.`,
        branch: `dependabot/${dependency.replace(/[^a-z0-9]+/gi, '-')}-${from}`,
      };
    }
    case 'docs':
      return {
        title: `docs: clarify how to ${rng.pick(verbs)} ${thing}`,
        body: `Documentation only.`,
        branch: `docs/${slug}`,
      };
  }
}

export function commentBody(rng: Rng, kind: IssueKind, byMaintainer: boolean): string {
  if (byMaintainer) {
    return rng.pick([
      'Thanks for the report! Could you share a minimal reproduction?',
      'Confirmed, I can reproduce this on main.',
      'This is expected behavior; see the docs section on configuration.',
      'A fix is in progress.',
      'Closing as answered, feel free to reopen.',
    ]);
  }
  if (kind === 'feature-debate') {
    return rng.pick([
      '+1, this would simplify our setup a lot.',
      'Strongly against changing the default; it would break us.',
      'What about making it opt-in first?',
      'We tried this in a fork and it worked well.',
    ]);
  }
  return rng.pick([
    'Same here on the latest version.',
    '+1',
    'Any update on this?',
    'I have a workaround: pin the previous version.',
    'Happy to send a PR if you point me to the right place.',
  ]);
}
