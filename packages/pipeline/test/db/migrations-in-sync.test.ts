// The committed migrations describe the schema as it is: a schema change without
// `npm run db:generate` fails here, not in production.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../src/db/connection.js';
import * as schema from '../../src/db/schema/index.js';

describe('committed migrations', () => {
  it('leave nothing to generate from db/schema', async () => {
    const journal = JSON.parse(await readFile(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
      entries: { idx: number }[];
    };
    const last = journal.entries.at(-1);
    expect(last).toBeDefined();
    const snapshotFile = join(migrationsFolder, 'meta', `${String(last?.idx).padStart(4, '0')}_snapshot.json`);
    // drizzle-kit/api types its snapshots with zod 3 types (this project has zod 4), so the type
    // resolves to an error type for the linter; the file is drizzle-kit's own output, passed back as is.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
    const committed = JSON.parse(await readFile(snapshotFile, 'utf8')) as Parameters<typeof generateMigration>[0];
    const pending = await generateMigration(committed, generateDrizzleJson(schema));
    expect(pending).toEqual([]);
  });
});
