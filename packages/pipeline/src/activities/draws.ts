// Activities of a draw: snapshot the registry's backlog (incrementally from the last snapshot when there is one), then
// select and record the draw. Files are published before rows are stored, and a draw recorded already is read back,
// never recorded again, so a retry or a rerun returns the same record with its first drawnAt.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { draws, registryVersions } from '../db/schema/index.js';
import type { GithubClient } from '../github/client.js';
import { eligiblePool } from '@abp/protocol/backlog/eligibility';
import { fetchSnapshot, refreshSnapshot, type BacklogFetch } from '../registry/backlog-fetch.js';
import { readSnapshotWithDigest, snapshotDigest, writeSnapshot } from '@abp/protocol/backlog/snapshot';
import { buildDrawRecord, drawRecordText, optOutsDigest } from '@abp/protocol/draw/record';
import { latestSnapshot, saveDraw, saveSnapshot } from '../registry/draw-store.js';
import { documentText, publicationPaths, writePublished } from '../registry/publication.js';
import { readOptOuts, readRegistryVersion } from '../registry/rotation/store.js';
import { drawSchema, type AbpDraw } from '@abp/protocol/schemas/abp-draw';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import {
  findDrawInput,
  recordDrawInput,
  snapshotBacklogInput,
  type FindDrawInput,
  type RecordDrawInput,
  type RecordedDraw,
  type SnapshotBacklogInput,
  type TakenSnapshot,
} from '../contracts/draw-workflow.js';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { statementPath, type Attestor } from '../signing/attestor.js';
import { createDrawRecordStatement, drawSubjectName, signedAtOf } from '@abp/protocol/signing/statement';
import { parsed } from './arguments.js';
import { heartbeating } from './heartbeat.js';

export interface DrawDependencies {
  db: Database;
  github: GithubClient;
  /** The publication folder: snapshots, draw records and opt-out lists are files there (registry/publication.ts). */
  publishDir: string;
  /** Signs each draw record and logs it; records are published unsigned without it (no signing key yet). */
  attestor?: Attestor;
}

/** A draw that cannot be made from what is stored: no retry helps, an operator has to act. */
function refuse(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'DrawRefused', message, nonRetryable: true });
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function latestRegistryVersion(db: Database): Promise<string> {
  const [row] = await db
    .select({ id: registryVersions.id })
    .from(registryVersions)
    .orderBy(desc(registryVersions.id))
    .limit(1);
  if (row === undefined)
    throw refuse('no registry version is stored: rotate the registry (`abp registry rotate`) before drawing');
  return row.id;
}

export function createDrawActivities({ db, github, publishDir, attestor }: DrawDependencies) {
  const paths = publicationPaths(publishDir);
  const recorded = (record: AbpDraw, created: boolean): RecordedDraw => ({
    drawId: record.id,
    digest: record.digest,
    recordPath: paths.draw(record.id),
    optOutsPath: paths.optOutsAt(record.inputDigests.optOuts),
    snapshotPath: paths.snapshot(record.backlogSnapshot.digest),
    statementPath:
      attestor === undefined ? null : statementPath(attestor.statementsDir, 'draw-record', drawSubjectName(record.id)),
    created,
    picks: record.picks.map((pick) => ({
      taskId: githubTaskId(pick.repo, pick.issue),
      drawId: record.id,
      repo: pick.repo,
      issue: pick.issue,
    })),
  });
  return {
    /** Reads the registry's open issues, published as a canonical snapshot and stored with each issue's verdict. */
    async snapshotBacklog(input: SnapshotBacklogInput): Promise<TakenSnapshot> {
      const args = parsed(snapshotBacklogInput, input, 'snapshotBacklog');
      const version = args.registryVersion ?? (await latestRegistryVersion(db));
      const registry = await readRegistryVersion(db, version);
      if (registry === null)
        throw refuse(
          `${version} is not stored: rotate it (\`abp registry rotate --version ${version}\`) or draw from a stored version`,
        );
      const options = {
        registryVersion: version,
        repos: registry.entries.map((entry) => entry.repo),
        takenAt: args.takenAt,
      };
      const previous = await latestSnapshot(db, version);
      const previousPath = previous === null ? null : paths.snapshot(previous.digest);
      // A previous snapshot whose file is gone cannot be refreshed: the backlog is read in full.
      const fetched: BacklogFetch = await heartbeating(async () =>
        previousPath !== null && (await exists(previousPath))
          ? refreshSnapshot(github, (await readSnapshotWithDigest(previousPath)).snapshot, options)
          : fetchSnapshot(github, options),
      );
      const digest = snapshotDigest(fetched.snapshot);
      const path = paths.snapshot(digest);
      if (!(await exists(path))) {
        await mkdir(dirname(path), { recursive: true });
        await writeSnapshot(path, fetched.snapshot);
      }
      const eligibility = eligiblePool(fetched.snapshot, { optOuts: await readOptOuts(db) });
      await saveSnapshot(db, fetched.snapshot, digest, eligibility);
      const issues = fetched.snapshot.repos.reduce((sum, repo) => sum + repo.issues.length, 0);
      return {
        registryVersion: version,
        digest,
        path,
        repos: fetched.snapshot.repos.length,
        issues,
        eligible: issues - eligibility.rejected.length,
        excluded: excludedByRule(eligibility.rejected),
        mode: fetched.mode,
        cost: fetched.cost,
      };
    },

    /** Selects the picks from the published snapshot with the opt-outs in force now, and records the draw once. */
    async recordDraw(input: RecordDrawInput): Promise<RecordedDraw> {
      const args = parsed(recordDrawInput, input, 'recordDraw');
      const { snapshot, digest } = await readSnapshotWithDigest(paths.snapshot(args.snapshotDigest));
      if (digest !== args.snapshotDigest)
        throw refuse(
          `${paths.snapshot(args.snapshotDigest)} hashes to ${digest}, not ${args.snapshotDigest}: the published snapshot was changed`,
        );
      const registry = await readRegistryVersion(db, snapshot.registryVersion);
      if (registry === null) throw refuse(`the snapshot names ${snapshot.registryVersion}, which is not stored`);
      const optOuts = await readOptOuts(db);
      const { pool, rules } = eligiblePool(snapshot, { optOuts });
      const fresh = buildDrawRecord({
        seed: args.seed,
        count: args.count,
        drawnAt: args.drawnAt,
        registryVersion: registry.version,
        registryDigest: registry.digest,
        snapshotDigest: digest,
        eligibilityRules: rules,
        optOuts,
        pool,
      });
      const recordPath = paths.draw(fresh.id);
      const optOutsPath = paths.optOutsAt(optOutsDigest(optOuts));
      await writePublished(optOutsPath, documentText([...optOuts].sort(compareCodeUnits)));
      // The id covers every input but drawnAt: a record published already is this draw, made earlier.
      let record: AbpDraw = fresh;
      if (await exists(recordPath)) record = drawSchema.parse(JSON.parse(await readFile(recordPath, 'utf8')));
      else await writePublished(recordPath, drawRecordText(fresh));
      // Signed after the file is published and before the row is stored: a retry finds the file and signs it once.
      await attestor?.attest(
        'draw-record',
        createDrawRecordStatement({
          drawId: record.id,
          digest: record.digest,
          registryVersion: record.registryVersion,
          seed: record.seed,
          picks: record.picks.length,
          backlogSnapshot: record.backlogSnapshot.digest,
          signedAt: signedAtOf(new Date()),
        }),
      );
      const created = await saveDraw(db, record);
      return recorded(record, created);
    },

    /** The draw made before with this registry version, seed and count, or null: drawing again returns it. */
    async findDraw(input: FindDrawInput): Promise<RecordedDraw | null> {
      const args = parsed(findDrawInput, input, 'findDraw');
      const version = args.registryVersion ?? (await latestRegistryVersion(db));
      const [row] = await db
        .select({ id: draws.id })
        .from(draws)
        .where(
          and(
            eq(draws.registryVersion, version),
            eq(draws.seed, BigInt(args.seed)),
            eq(draws.requestedCount, args.count),
          ),
        )
        .orderBy(asc(draws.drawnAt))
        .limit(1);
      if (row === undefined) return null;
      const record = drawSchema.parse(JSON.parse(await readFile(paths.draw(row.id), 'utf8')));
      return recorded(record, false);
    },
  };
}

/** How many issues each eligibility rule left out, in the rules' order: why a draw has fewer picks than asked. */
function excludedByRule(rejected: ReadonlyArray<{ reason: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { reason } of rejected) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}
