// The CI actor plays GitHub Actions: the app and bot that check runs name on GitHub, and the ids
// of its check runs and suites. REST listings and webhook payloads both use these, so a check run
// listed over REST has the id its webhook delivered.
import { hash4 } from '../world/random.js';

export const ciBotLogin = 'github-actions[bot]';

export const actionsApp = {
  id: 15368,
  slug: 'github-actions',
  node_id: 'MDM6QXBwMTUzNjg=',
  name: 'GitHub Actions',
  description: 'Automate your workflow from idea to production',
  external_url: 'https://help.github.com/en/actions',
  created_at: '2018-07-30T09:30:17Z',
  updated_at: '2019-12-10T19:04:12Z',
  permissions: { checks: 'write', contents: 'write', metadata: 'read', pull_requests: 'write' },
  events: ['check_run', 'check_suite', 'pull_request', 'push'],
} as const;

const checkRunStream = 0x6372_756e;
const checkSuiteStream = 0x6373_7569;

/** The first 32 bits of a git object id, to fold an oid into a hash. */
export function oidWord(oid: string): number {
  return parseInt(oid.slice(0, 8), 16) >>> 0;
}

export function checkRunId(repoId: number, pullNumber: number, headOid: string): number {
  return 1_000_000_000 + hash4(checkRunStream, repoId, pullNumber, oidWord(headOid));
}

export function checkSuiteId(repoId: number, pullNumber: number, headOid: string): number {
  return 1_000_000_000 + hash4(checkSuiteStream, repoId, pullNumber, oidWord(headOid));
}

/** The id of a commit status mirroring a check run (the optional status context). */
export function commitStatusId(repoId: number, pullNumber: number, headOid: string): number {
  return 2_000_000_000 + hash4(checkRunStream, repoId, pullNumber, oidWord(headOid));
}
