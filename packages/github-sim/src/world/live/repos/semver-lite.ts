// semver-lite (Rust, cargo test): parse semantic versions and order them by precedence. Open:
// a release sorts before its pre-releases (fix), numeric pre-release identifiers compare as text
// (fix; both fixes rewrite the same line, so merging one makes the other conflict), and a
// question about build metadata (unlabeled; no fix).

import type { LiveRepoSpec } from '../spec.js';
import { apacheNotice, ciWorkflow, text } from '../spec.js';

const owner = 'ana-ferris';

const cargoToml = text`
[package]
name = "semver-lite"
version = "0.3.1"
edition = "2021"
description = "Parse semantic versions and order them by precedence."
license = "Apache-2.0"

[dependencies]
`;

const libRs = text`
//! Semantic versions in a few lines: parse "1.4.0-rc.1" and order versions by precedence.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// A version "MAJOR.MINOR.PATCH" with optional pre-release identifiers ("-rc.1").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
}

/// Why a string is not a version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid version: {}", self.0)
    }
}

impl std::error::Error for ParseError {}

impl Version {
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version { major, minor, patch, pre: Vec::new() }
    }

    pub fn parse(text: &str) -> Result<Version, ParseError> {
        let text = text.trim();
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, pre.split('.').map(String::from).collect::<Vec<_>>()),
            None => (text, Vec::new()),
        };
        if pre.iter().any(|id| id.is_empty()) {
            return Err(ParseError(format!("empty pre-release identifier in {:?}", text)));
        }
        let mut parts = core.split('.');
        let mut number = |name: &str| -> Result<u64, ParseError> {
            let part = parts.next().ok_or_else(|| ParseError(format!("missing {} in {:?}", name, text)))?;
            part.parse::<u64>().map_err(|_| ParseError(format!("bad {} {:?} in {:?}", name, part, text)))
        };
        let major = number("major")?;
        let minor = number("minor")?;
        let patch = number("patch")?;
        if parts.next().is_some() {
            return Err(ParseError(format!("too many numbers in {:?}", text)));
        }
        Ok(Version { major, minor, patch, pre })
    }
}

impl FromStr for Version {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Version, ParseError> {
        Version::parse(text)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    /// Precedence as semver.org defines it: core numbers first, then pre-release identifiers.
    fn cmp(&self, other: &Self) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        core.then_with(|| self.pre.cmp(&other.pre))
    }
}
`;

const versionTests = text`
use semver_lite::Version;

fn v(text: &str) -> Version {
    Version::parse(text).expect("a valid version")
}

#[test]
fn parses_core_numbers() {
    assert_eq!(v("1.2.3"), Version::new(1, 2, 3));
}

#[test]
fn parses_prerelease_identifiers() {
    assert_eq!(v("1.0.0-rc.1").pre, vec!["rc", "1"]);
}

#[test]
fn rejects_garbage() {
    for text in ["", "1", "1.2", "1.2.x", "1.2.3.4", "1.2.3-"] {
        assert!(Version::parse(text).is_err(), "{:?} parsed", text);
    }
}

#[test]
fn orders_by_core_numbers() {
    assert!(v("1.2.3") < v("1.10.0"));
    assert!(v("2.0.0") > v("1.99.99"));
}

#[test]
fn orders_prereleases_by_identifier() {
    assert!(v("1.0.0-alpha") < v("1.0.0-beta"));
}
`;

const display = text`

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre.join("."))?;
        }
        Ok(())
    }
}
`;

const readme = text`
# semver-lite

Parse semantic versions and order them by precedence, without dependencies.

~~~rust
use semver_lite::Version;

let v: Version = "1.4.0-rc.1".parse()?;
assert!(v < Version::new(1, 4, 0));
~~~
`;

export const semverLite: LiveRepoSpec = {
  name: 'semver-lite',
  description: 'Parse semantic versions and order them by precedence, without dependencies.',
  language: 'Rust',
  licenseSpdxId: 'Apache-2.0',
  stars: 87,
  runner: 'cargo-test',
  labels: [
    { name: 'Type: Bug', color: 'd73a4a', description: null },
    { name: 'Type: Feature', color: 'a2eeef', description: null },
    { name: 'Type: Question', color: 'd876e3', description: null },
    { name: 'Status: Needs Triage', color: 'fbca04', description: null },
  ],
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 160,
      commit: {
        message: 'Initial commit: parse and compare versions',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: apacheNotice(owner) },
          { path: '.gitignore', content: '/target\nCargo.lock\n' },
          { path: 'Cargo.toml', content: cargoToml },
          { path: 'src/lib.rs', content: libRs },
          { path: 'tests/version.rs', content: versionTests },
        ],
      },
    },
    {
      type: 'commit',
      day: 110,
      commit: {
        message: 'Implement Display',
        author: owner,
        edits: [
          { path: 'src/lib.rs', append: display },
          {
            path: 'tests/version.rs',
            append:
              '\n#[test]\nfn displays_what_it_parsed() {\n    for text in ["1.2.3", "0.1.0-rc.1"] {\n        assert_eq!(v(text).to_string(), text);\n    }\n}\n',
          },
        ],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'Reject leading zeros in version numbers',
      body: 'semver.org: numeric identifiers must not include leading zeroes.\n\nFixes #1',
      branch: 'no-leading-zeros',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 25,
      mergedDay: 22,
      commits: [
        {
          message: 'parse: reject leading zeros',
          author: '{c0}',
          edits: [
            {
              path: 'src/lib.rs',
              replace: [
                [
                  '            part.parse::<u64>().map_err(',
                  '            if part.len() > 1 && part.starts_with(\'0\') {\n                return Err(ParseError(format!("leading zero in {} of {:?}", name, text)));\n            }\n            part.parse::<u64>().map_err(',
                ],
              ],
            },
            {
              path: 'tests/version.rs',
              append:
                '\n#[test]\nfn rejects_leading_zeros() {\n    for text in ["01.2.3", "1.02.3", "1.2.03"] {\n        assert!(Version::parse(text).is_err(), "{:?} parsed", text);\n    }\n    assert_eq!(v("0.0.0"), Version::new(0, 0, 0));\n}\n',
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 16,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow('      - uses: dtolnay/rust-toolchain@stable', 'cargo test'),
          },
        ],
      },
    },
  ],
  issues: [
    {
      number: 1,
      title: 'Version::parse accepts leading zeros',
      body: '`Version::parse("01.2.3")` succeeds. The spec says numeric identifiers must not include leading zeroes, and other tools reject it.',
      kind: 'bug',
      labels: ['Type: Bug'],
      author: '{c0}',
      openedDay: 29,
      closedByPull: 2,
      comments: [],
    },
    {
      number: 3,
      title: '1.0.0 sorts before 1.0.0-alpha',
      body: '```rust\nassert!(Version::parse("1.0.0-alpha")? < Version::parse("1.0.0")?); // fails\n```\n\nA pre-release has lower precedence than the release it leads to (semver.org, item 11), but the comparison treats "no identifiers" as the smallest.',
      kind: 'bug',
      labels: ['Type: Bug'],
      author: '{c1}',
      openedDay: 13,
      comments: [{ author: owner, body: 'Right: comparing the identifier lists directly puts the empty list first.' }],
      fix: {
        branch: 'release-after-prerelease',
        title: 'Order a release after its pre-releases',
        body: 'A version without pre-release identifiers has higher precedence than one with them.\n\nFixes #3',
        commitMessage: 'cmp: a release has higher precedence than its pre-releases',
        edits: [
          {
            path: 'src/lib.rs',
            replace: [
              [
                '        core.then_with(|| self.pre.cmp(&other.pre))\n',
                '        core.then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {\n            (true, true) => Ordering::Equal,\n            (true, false) => Ordering::Greater,\n            (false, true) => Ordering::Less,\n            (false, false) => self.pre.cmp(&other.pre),\n        })\n',
              ],
            ],
          },
          {
            path: 'tests/version.rs',
            append:
              '\n#[test]\nfn prerelease_sorts_before_release() {\n    assert!(v("1.0.0-alpha") < v("1.0.0"));\n    assert!(v("1.0.0") > v("1.0.0-rc.1"));\n}\n',
          },
        ],
        failToPass: ['tests/version.rs::prerelease_sorts_before_release'],
        breaks: [],
      },
    },
    {
      number: 4,
      title: 'Pre-release numbers compare as text: rc.10 sorts before rc.2',
      body: '`1.0.0-rc.10 < 1.0.0-rc.2` is true. Identifiers made of digits should compare numerically (semver.org, item 11.4.1).',
      kind: 'bug',
      labels: ['Type: Bug', 'Status: Needs Triage'],
      author: '{c2}',
      openedDay: 10,
      comments: [],
      fix: {
        branch: 'numeric-prerelease',
        title: 'Compare numeric pre-release identifiers as numbers',
        body: 'Identifiers made of digits compare numerically and sort before alphanumeric ones, as semver.org specifies.\n\nFixes #4',
        commitMessage: 'cmp: compare numeric pre-release identifiers as numbers',
        edits: [
          {
            path: 'src/lib.rs',
            replace: [
              [
                '        core.then_with(|| self.pre.cmp(&other.pre))\n',
                '        core.then_with(|| compare_pre(&self.pre, &other.pre))\n',
              ],
              [
                'impl fmt::Display for Version {\n',
                '/// Identifiers compare pairwise: numbers numerically and before words, words as text.\nfn compare_pre(left: &[String], right: &[String]) -> Ordering {\n    for (a, b) in left.iter().zip(right) {\n        let order = match (a.parse::<u64>(), b.parse::<u64>()) {\n            (Ok(x), Ok(y)) => x.cmp(&y),\n            (Ok(_), Err(_)) => Ordering::Less,\n            (Err(_), Ok(_)) => Ordering::Greater,\n            (Err(_), Err(_)) => a.cmp(b),\n        };\n        if order != Ordering::Equal {\n            return order;\n        }\n    }\n    left.len().cmp(&right.len())\n}\n\nimpl fmt::Display for Version {\n',
              ],
            ],
          },
          {
            path: 'tests/version.rs',
            append:
              '\n#[test]\nfn numeric_identifiers_compare_as_numbers() {\n    assert!(v("1.0.0-rc.2") < v("1.0.0-rc.10"));\n    assert!(v("1.0.0-1") < v("1.0.0-alpha"));\n}\n',
          },
        ],
        failToPass: ['tests/version.rs::numeric_identifiers_compare_as_numbers'],
        breaks: [],
      },
    },
    {
      number: 5,
      title: 'Is build metadata (+build.5) supported?',
      body: 'Does `Version::parse` follow the semver 2.0 rules for build metadata, e.g. `1.0.0+build.5`? And should it be ignored when comparing?',
      kind: 'question',
      labels: [],
      author: '{c0}',
      openedDay: 2,
      comments: [],
    },
  ],
  flaky: [],
};
