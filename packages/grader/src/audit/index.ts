// Auditing a registry's transparency log: every entry and checkpoint of a log folder, one entry's inclusion, two
// checkpoints' consistency. The draw audit is @abp/protocol's draw/audit. This file only re-exports.

export {
  auditLog,
  verifyConsistencyOf,
  verifyInclusionOf,
  type AuditOptions,
  type AuditSummary,
  type PinnedKeys,
} from './log-audit.js';
