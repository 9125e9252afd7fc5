// Writes packages/protocol/json-schema/<kind>.schema.json from the zod schemas; with --check, writes nothing and fails when a file is stale or missing.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderJsonSchemaFiles } from '@abp/protocol/schemas/json-schema';

export const DEFAULT_OUT_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'packages',
  'protocol',
  'json-schema',
);

export interface ExportPlan {
  /** Files whose committed text differs from the generated one. */
  stale: string[];
  missing: string[];
  /** *.schema.json files in the folder that no kind generates any more. */
  unexpected: string[];
  files: Array<{ fileName: string; text: string }>;
}

async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Compares the generated files with the folder's content; changes nothing. */
export async function planJsonSchemaExport(outDir: string = DEFAULT_OUT_DIR): Promise<ExportPlan> {
  const files = renderJsonSchemaFiles();
  const plan: ExportPlan = { stale: [], missing: [], unexpected: [], files };
  for (const file of files) {
    const current = await readIfPresent(join(outDir, file.fileName));
    if (current === null) plan.missing.push(file.fileName);
    else if (current !== file.text) plan.stale.push(file.fileName);
  }
  const generated = new Set(files.map((file) => file.fileName));
  const present = await readdir(outDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  plan.unexpected = present.filter((name) => name.endsWith('.schema.json') && !generated.has(name)).sort();
  return plan;
}

// Temp file plus rename in the same folder: a reader (or an interrupted run) never sees half a schema.
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Applies a plan: writes the stale and missing files, removes the unexpected ones. Returns the names it touched. */
export async function applyJsonSchemaExport(plan: ExportPlan, outDir: string = DEFAULT_OUT_DIR): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const changed = new Set([...plan.stale, ...plan.missing]);
  for (const file of plan.files)
    if (changed.has(file.fileName)) await writeAtomically(join(outDir, file.fileName), file.text);
  for (const name of plan.unexpected) await rm(join(outDir, name), { force: true });
  return [...changed, ...plan.unexpected].sort();
}

export async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(
      `unknown argument ${unknown.join(' ')}; usage: node bin/run-ts.js scripts/export-json-schemas.ts [--check]`,
    );
    return 2;
  }
  const plan = await planJsonSchemaExport();
  if (argv.includes('--check')) {
    const problems = [
      ...plan.stale.map((name) => `stale: packages/protocol/json-schema/${name}`),
      ...plan.missing.map((name) => `missing: packages/protocol/json-schema/${name}`),
      ...plan.unexpected.map((name) => `unexpected: packages/protocol/json-schema/${name}`),
    ];
    if (problems.length === 0) {
      console.log(`packages/protocol/json-schema: ${plan.files.length} JSON Schema files are current`);
      return 0;
    }
    console.error(
      `${problems.join('\n')}\npackages/protocol/json-schema is out of date: run npm run schemas:export and commit the result`,
    );
    return 1;
  }
  const touched = await applyJsonSchemaExport(plan);
  console.log(
    touched.length === 0
      ? `packages/protocol/json-schema: ${plan.files.length} files already current`
      : `packages/protocol/json-schema: updated ${touched.join(', ')}`,
  );
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
