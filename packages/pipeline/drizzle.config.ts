// drizzle-kit configuration: generates the committed SQL migrations in migrations/ from
// src/db/schema. `npm run db:generate` after a schema change; custom SQL (triggers) goes in
// `npx drizzle-kit generate --custom --name <what>`. Runtime migration is src/db/connection.ts#migrate.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './migrations',
  strict: true,
  verbose: true,
  migrations: { table: '__drizzle_migrations', schema: 'drizzle' },
});
