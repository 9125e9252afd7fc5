// The drizzle schema of abp: every table, enum and relation, one file per domain.
export * from './registry.js';
export * from './backlog.js';
export * from './draws.js';
export * from './tasks.js';
export * from './bundles.js';
export * from './rotation.js';
