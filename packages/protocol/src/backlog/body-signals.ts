// The body-signal rules `abp-body-signals/1`: what an issue's title and body say about it (a reproduction, a question,
// a proposal), as three booleans the snapshot keeps in place of the body. One table of patterns, documented in
// docs/eligibility.md; any change to a pattern or to the text preparation is a new SIGNAL_RULES version.
import type { BodySignals } from './types.js';

export const SIGNAL_RULES = 'abp-body-signals/1';

/**
 * Where a pattern looks. `title`: the title alone. `text`: the title, a newline, then the body's prose (the body
 * outside fenced code blocks). `code`: the contents of the body's fenced code blocks, joined by newlines. `body`:
 * prose and code together, in body order. HTML comments are removed from the body first: issue templates hide their
 * instructions in them, and an untouched template must not read as a reproduction.
 */
export type SignalScope = 'title' | 'text' | 'code' | 'body';

export interface SignalPattern {
  /** Stable name, used by the documentation and the tests. */
  name: string;
  signal: keyof BodySignals;
  scope: SignalScope;
  /** The pattern matches when every one of these does (most have one). */
  all: readonly RegExp[];
}

/**
 * A heading that starts with one of `phrases`: a markdown heading or a bold line (at most 40 more characters on the
 * line), or the phrase followed by a colon, as templates and hand-written reports label their sections.
 */
function heading(phrases: string): RegExp {
  return new RegExp(
    `^[ \\t]{0,3}(?:(?:#{1,6}[ \\t]*|\\*\\*|__)[ \\t]*(?:${phrases})\\b[^\\n]{0,40}|(?:${phrases})[ \\t]*(?:\\*\\*|__)?[ \\t]*:[^\\n]*)$`,
    'im',
  );
}

// Quantifiers are bounded and anchored so a 65,536-character body (GitHub's limit) is scanned in linear time.
export const SIGNAL_PATTERNS: readonly SignalPattern[] = [
  // A section announcing how to reproduce: "### Steps to reproduce", "**Reproduction**", "Repro steps:".
  {
    name: 'reproduction-heading',
    signal: 'reproduction',
    scope: 'text',
    all: [
      heading(
        'steps?[ \\t]+to[ \\t]+reproduce|(?:how[ \\t]+)?to[ \\t]+reproduce|reproduction(?:[ \\t]+steps)?|repro(?:[ \\t]+steps)?|reproducible[ \\t]+example|minimal[ \\t]+(?:reproducible[ \\t]+)?example|mcve|reprex',
      ),
    ],
  },
  // Both an "expected" and an "actual" section: the defect report's contrast of what should and what does happen.
  {
    name: 'expected-and-actual',
    signal: 'reproduction',
    scope: 'text',
    all: [
      heading('expected(?:[ \\t]+(?:behaviou?r|result|output|outcome))?'),
      heading('(?:actual|current|observed)(?:[ \\t]+(?:behaviou?r|result|output|outcome))?'),
    ],
  },
  // An error message or exception in a code block (pasted output): "TypeError", "NullPointerException", "error[E0308]:", "panic:".
  {
    name: 'error-in-code-block',
    signal: 'reproduction',
    scope: 'code',
    all: [/\b[A-Z][A-Za-z0-9]{0,60}(?:Error|Exception)\b|^[ \t]*(?:error|fatal|panic)(?:\[[A-Z]?\d{1,6}\])?:/m],
  },
  // A stack trace, fenced or pasted inline: Python's traceback header, a JS/Java frame "at f (file.js:1:2)", Rust's
  // "thread 'main' panicked at", Go's "goroutine 1 [running]", a crashed process.
  {
    name: 'stack-trace',
    signal: 'reproduction',
    scope: 'body',
    all: [
      /Traceback \(most recent call last\)|^[ \t]+at [^\n]{1,300}:\d{1,7}(?::\d{1,7})?\)?[ \t]*$|\bthread '[^'\n]{0,100}' panicked at\b|^goroutine \d{1,9} \[|\bsegmentation fault\b|\bcore dumped\b/im,
    ],
  },
  // A link to a runnable reproduction on an online playground.
  {
    name: 'playground-link',
    signal: 'reproduction',
    scope: 'body',
    all: [
      /\bhttps?:\/\/(?:www\.)?(?:codesandbox\.io|stackblitz\.com|jsfiddle\.net|codepen\.io|replit\.com|repl\.it|play\.rust-lang\.org|go\.dev\/play|play\.golang\.org|(?:www\.)?typescriptlang\.org\/play|godbolt\.org)\b/i,
    ],
  },

  // A title that is a question: an interrogative first word and a final "?" ("How do I …?", "Why does …?").
  {
    name: 'interrogative-title',
    signal: 'question',
    scope: 'title',
    all: [/^\W{0,3}(?:how|what|why|where|when|which|who|can|could|is|are|does|do|will|would)\b[^\n]{0,300}\?\s*$/i],
  },
  // A title tagged as a question or a request for help: "Question: …", "[Question] …", "Q: …", "Help: …".
  {
    name: 'question-title-tag',
    signal: 'question',
    scope: 'title',
    all: [/^\W{0,3}(?:question|q|help|support)\W{0,3}[:\]]/i],
  },
  // A how-to title without a question mark: "How to configure …".
  {
    name: 'how-to-title',
    signal: 'question',
    scope: 'title',
    all: [/^\W{0,3}how (?:to|do|can|should|would)\b/i],
  },
  // Asking how to do something: "how do I", "how can we", "how should one".
  {
    name: 'how-do-i',
    signal: 'question',
    scope: 'text',
    all: [/\bhow (?:do|can|should|would|could) (?:i|we|you|one)\b/i],
  },
  // Asking whether something can be done: "is it possible", "is there a way".
  {
    name: 'is-it-possible',
    signal: 'question',
    scope: 'text',
    all: [/\b(?:is it possible|is there (?:a|any) way)\b/i],
  },
  // Asking for guidance: "any pointers", "can someone explain", "what is the recommended way".
  {
    name: 'asks-for-guidance',
    signal: 'question',
    scope: 'text',
    all: [
      /\bany (?:pointers|advice|tips)\b|\b(?:can|could) (?:someone|anyone|somebody) (?:help|explain|tell|point)\b|\bwhat(?:'s| is) the (?:best|recommended|right|correct|proper|preferred) way\b/i,
    ],
  },

  // A title tagged as a proposal: "Feature request: …", "[RFC] …", "feat(cli): …", "Proposal: …", "Discussion: …".
  {
    name: 'proposal-title-tag',
    signal: 'proposal',
    scope: 'title',
    all: [
      /^\W{0,3}(?:feature(?:[ -]request)?|feat|proposal|rfc|enhancement|idea|suggestion|discussion|discuss)(?:\([^)\n]{0,40}\))?\W{0,3}[:\]]/i,
    ],
  },
  // Asking for new behaviour: "feature request", "it would be nice/useful", "I propose", "proposed API".
  {
    name: 'asks-for-feature',
    signal: 'proposal',
    scope: 'text',
    all: [
      /\bfeature request\b|\bit would be (?:nice|great|useful|helpful|good|awesome|cool|handy)\b|\b(?:i|we) (?:would like to )?(?:propose|suggest)\b|\bproposed (?:api|design|solution|change|syntax|interface|behaviou?r)\b/i,
    ],
  },
  // Opening a debate rather than reporting a defect: "RFC", "request for comments", "collect opinions/feedback".
  {
    name: 'asks-for-opinions',
    signal: 'proposal',
    scope: 'text',
    all: [/\b(?:rfc|request for comments)\b|\b(?:collect|gather|looking for) (?:opinions|feedback|input)\b/i],
  },
  // Weighing a change: both a "Pros:" and a "Cons:" line.
  {
    name: 'pros-and-cons',
    signal: 'proposal',
    scope: 'text',
    all: [
      /^[ \t]{0,3}(?:[-*][ \t]+)?(?:\*\*)?pros(?:\*\*)?[ \t]*:/im,
      /^[ \t]{0,3}(?:[-*][ \t]+)?(?:\*\*)?cons(?:\*\*)?[ \t]*:/im,
    ],
  },
];

interface Scopes {
  title: string;
  text: string;
  code: string;
  body: string;
}

const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/** Splits a body into prose and fenced code (CommonMark fences: a closing fence of the same character, at least as long). */
function scopes(title: string, body: string): Scopes {
  const cleaned = body.replace(/\r\n?/g, '\n').replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const prose: string[] = [];
  const code: string[] = [];
  let closing: RegExp | null = null;
  for (const line of cleaned.split('\n')) {
    if (closing === null) {
      const opened = FENCE.exec(line)?.[1];
      if (opened === undefined) prose.push(line);
      else closing = new RegExp(`^[ \\t]{0,3}${opened[0] === '`' ? '`' : '~'}{${opened.length},}[ \\t]*$`);
    } else if (closing.test(line)) {
      closing = null;
    } else {
      code.push(line);
    }
  }
  return { title, text: `${title}\n${prose.join('\n')}`, code: code.join('\n'), body: cleaned };
}

/** The signals of an issue under SIGNAL_RULES: a signal is set when any pattern of that signal matches. */
export function bodySignals(title: string, body: string): BodySignals {
  const text = scopes(title, body);
  const signals: BodySignals = { reproduction: false, question: false, proposal: false };
  for (const pattern of SIGNAL_PATTERNS) {
    if (signals[pattern.signal]) continue;
    if (pattern.all.every((regex) => regex.test(text[pattern.scope]))) signals[pattern.signal] = true;
  }
  return signals;
}
