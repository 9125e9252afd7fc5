// GitHub's public GraphQL schema, as @octokit/graphql-schema ships it, built once per process.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildSchema, type GraphQLSchema } from 'graphql';

let cached: GraphQLSchema | undefined;

/** Where the SDL file sits: the package only exports its JS entry, so walk the resolver's search paths. */
export function githubSchemaPath(): string {
  const require = createRequire(import.meta.url);
  const candidates = (require.resolve.paths('@octokit/graphql-schema') ?? []).map((dir) =>
    join(dir, '@octokit', 'graphql-schema', 'schema.graphql'),
  );
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new Error(
      "GitHub's GraphQL schema was not found: install it with `npm ci` (package @octokit/graphql-schema).",
    );
  }
  return found;
}

/** GitHub's schema, built on first use (about 0.2 s) and shared by every request after. */
export function githubSchema(): GraphQLSchema {
  // assumeValidSDL: the SDL is GitHub's own, validating its 1.2 MB again only costs start-up time.
  cached ??= buildSchema(readFileSync(githubSchemaPath(), 'utf8'), { assumeValidSDL: true });
  return cached;
}
