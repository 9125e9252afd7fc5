// How the grader runs adapter and verification commands: one entry point; each concept lives in
// its own module and this file only re-exports.

export { ProcessError, type ProcessErrorCode } from './errors.js';
export { expandPlaceholders, findPlaceholderProblems, placeholderNames, type PlaceholderName } from './placeholders.js';
export { reducedEnvironment, type ReducedEnvironmentInput } from './environment.js';
export { sandboxArgv, sandboxStatus, type SandboxSpec, type SandboxStatus } from './sandbox.js';
export { killGraceMs, killRunningCommands, maxTimeoutMs, runBounded, type BoundedCommand, type CommandResult } from './bounded-command.js';
