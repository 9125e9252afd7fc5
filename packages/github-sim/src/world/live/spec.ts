// What a live-world repository is made of, as data: its files, its history (commits and one merged
// pull request), its issues and the known fix of each fixable one. The catalog (repos/*.ts) writes
// specs; build.ts turns a spec and a seed into bare git repositories and world records.

import type { IssueKind, SimLabel } from '../model.js';
import type { LiveRunnerId } from './runners.js';
import { AbpError } from '@abp/protocol/errors';

/** One change to a file; edits apply in order to the content left by the previous commit. */
export type FileEdit =
  | { path: string; content: string }
  /** Exact substitutions: each `from` must occur exactly once, so a stale spec fails loudly. */
  | { path: string; replace: readonly (readonly [from: string, to: string])[] }
  | { path: string; append: string }
  | { path: string; remove: true };

export interface CommitSpec {
  message: string;
  /** A login, or a contributor placeholder `{c0}`…`{c2}` the seed resolves. */
  author: string;
  edits: readonly FileEdit[];
}

export type HistoryStep =
  /** A commit on the default branch, `day` days before the world's clock (the seed adds up to 12 hours). */
  | { type: 'commit'; day: number; commit: CommitSpec }
  /** A pull request from a contributor's branch, merged with a merge commit as GitHub's merge button makes it. */
  | {
      type: 'merged-pull';
      number: number;
      title: string;
      body: string;
      branch: string;
      author: string;
      mergedBy: string;
      openedDay: number;
      mergedDay: number;
      commits: readonly CommitSpec[];
    };

export interface CommentSpec {
  author: string;
  body: string;
}

/** A fix known to work (or, for `breaks`, known to break something), kept as data for the reference solver. */
export interface FixSpec {
  /** Branch the solver pushes to its fork. */
  branch: string;
  title: string;
  /** The pull request body; names the issue with "Fixes #n". */
  body: string;
  commitMessage: string;
  edits: readonly FileEdit[];
  /** Test ids (see runners.ts) that fail before the fix and pass after it. */
  failToPass: readonly string[];
  /** Test ids that pass before and fail after: a fix that turns CI red. */
  breaks: readonly string[];
}

export interface IssueSpec {
  number: number;
  title: string;
  body: string;
  kind: IssueKind;
  labels: readonly string[];
  author: string;
  openedDay: number;
  /** Set for issues a history pull request closed ("Fixes #n" in its body). */
  closedByPull?: number;
  comments: readonly CommentSpec[];
  fix?: FixSpec;
}

/** A test whose outcome depends on a random draw; the environment variable pins the draw. */
export interface FlakySpec {
  test: string;
  env: string;
  /** A value of `env` under which the test passes, and one under which it fails. */
  passingValue: string;
  failingValue: string;
  why: string;
}

export interface LiveRepoSpec {
  name: string;
  description: string;
  language: string;
  licenseSpdxId: string;
  stars: number;
  runner: LiveRunnerId;
  /**
   * What the repository's CI runs before its tests, with the network: a virtualenv and `pip install`, `npm ci`,
   * `go mod download`, `cargo fetch`. Absent for a repository that needs nothing beyond its toolchain.
   */
  install?: string;
  labels: readonly SimLabel[];
  /** Logins; the first owns the repository (GitHub's `owner`). */
  maintainers: readonly string[];
  history: readonly HistoryStep[];
  issues: readonly IssueSpec[];
  flaky: readonly FlakySpec[];
}

/** File contents written flush left: backslashes stay as typed (String.raw), a leading newline is dropped. */
export function text(strings: TemplateStringsArray, ...values: unknown[]): string {
  return String.raw(strings, ...values).replace(/^\n/, '');
}

export type FileTree = Map<string, string>;

export class SpecError extends AbpError<'edit-not-applicable' | 'unknown-label'> {}

/** Applies edits to a copy of `tree`. */
export function applyEdits(tree: ReadonlyMap<string, string>, edits: readonly FileEdit[]): FileTree {
  const next = new Map(tree);
  for (const edit of edits) {
    const current = next.get(edit.path);
    if ('content' in edit) next.set(edit.path, edit.content);
    else if ('remove' in edit) {
      if (!next.delete(edit.path))
        throw new SpecError('edit-not-applicable', `cannot remove ${edit.path}: no such file`);
    } else if ('append' in edit) {
      if (current === undefined)
        throw new SpecError('edit-not-applicable', `cannot append to ${edit.path}: no such file`);
      next.set(edit.path, current + edit.append);
    } else {
      if (current === undefined) throw new SpecError('edit-not-applicable', `cannot edit ${edit.path}: no such file`);
      let content = current;
      for (const [from, to] of edit.replace) {
        const at = content.indexOf(from);
        if (at === -1 || content.indexOf(from, at + 1) !== -1) {
          throw new SpecError(
            'edit-not-applicable',
            `${edit.path}: expected exactly one occurrence of ${JSON.stringify(from.slice(0, 60))}`,
          );
        }
        content = content.slice(0, at) + to + content.slice(at + from.length);
      }
      next.set(edit.path, content);
    }
  }
  return next;
}

/** GitHub's default labels, as a new repository gets them; a spec picks the ones its maintainers kept. */
const GITHUB_DEFAULT_LABELS: readonly SimLabel[] = [
  { name: 'bug', color: 'd73a4a', description: "Something isn't working" },
  { name: 'documentation', color: '0075ca', description: 'Improvements or additions to documentation' },
  { name: 'enhancement', color: 'a2eeef', description: 'New feature or request' },
  { name: 'good first issue', color: '7057ff', description: 'Good for newcomers' },
  { name: 'help wanted', color: '008672', description: 'Extra attention is needed' },
  { name: 'question', color: 'd876e3', description: 'Further information is requested' },
];

export function defaultLabels(...names: string[]): SimLabel[] {
  return names.map((name) => {
    const label = GITHUB_DEFAULT_LABELS.find((candidate) => candidate.name === name);
    if (label === undefined)
      throw new SpecError(
        'unknown-label',
        `${name} is not one of GitHub's default labels: spell it as GitHub does, or list it in full`,
      );
    return label;
  });
}

export function mitLicense(holder: string): string {
  return text`
MIT License

Copyright (c) 2025 ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;
}

export function bsd3License(holder: string): string {
  return text`
BSD 3-Clause License

Copyright (c) 2024, ${holder}

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
`;
}

/** The notice the Apache License asks projects to carry (the full text is long and adds nothing here). */
export function apacheNotice(holder: string): string {
  return text`
Copyright 2025 ${holder}

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
`;
}

/** A GitHub Actions workflow that runs the repository's tests on pushes to main and on pull requests. */
export function ciWorkflow(setup: string, test: string): string {
  return text`
name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
${setup}
      - run: ${test}
`;
}
