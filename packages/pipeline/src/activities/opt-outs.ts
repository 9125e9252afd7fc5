// The opt-out list's one writer: the worker, which owns the database (PGlite allows one process). `abp registry
// opt-out` reaches it through a workflow. Each change is one transaction and republishes the list's file.
import type { Database } from '../db/connection.js';
import { optOuts } from '../db/schema/index.js';
import { documentText, publicationPaths, writePublished } from '../registry/publication.js';
import { readOptOuts } from '../registry/rotation/store.js';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { optOutInput, type OptOutInput, type OptOutResult } from '../contracts/rotation.js';
import { parsed } from './arguments.js';

export interface OptOutDependencies {
  db: Database;
  publishDir?: string;
}

export function createOptOutActivities({ db, publishDir }: OptOutDependencies) {
  return {
    /** Idempotent: a repository opted out already keeps its first request (GitHub names compare without case). */
    async saveOptOut(input: OptOutInput): Promise<OptOutResult> {
      const request = parsed(optOutInput, input, 'saveOptOut');
      const inserted = await db
        .insert(optOuts)
        .values({ repo: request.repo, reason: request.reason, requestedBy: request.requestedBy })
        // The only unique key besides the generated id is lower(repo): a conflict is a repository opted out already.
        .onConflictDoNothing()
        .returning({ repo: optOuts.repo });
      const list = [...(await readOptOuts(db))].sort(compareCodeUnits);
      if (publishDir !== undefined) await writePublished(publicationPaths(publishDir).optOuts, documentText(list));
      return { repo: request.repo, added: inserted.length > 0, optOuts: list };
    },
  };
}
