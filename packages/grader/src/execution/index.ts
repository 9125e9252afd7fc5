// The execution layer: every command abp does not trust (an adapter, a verification) and every program it does (git,
// formatters, toolchains) runs through here. One spawn site (spawn.ts); the bounded command for untrusted ones, with
// the sandbox; the trusted-program runner; the one hardened git. This file only re-exports.

export { ExecutionError, type ExecutionErrorCode } from './errors.js';
export { expandPlaceholders, findPlaceholderProblems, placeholderNames, type PlaceholderName } from './placeholders.js';
export { reducedEnvironment, type ReducedEnvironmentInput } from './environment.js';
export { sandboxArgv, sandboxStatus, type SandboxSpec, type SandboxStatus } from './sandbox.js';
export { killGraceMs, killRunningCommands, maxTimeoutMs, type CommandResult } from './spawn.js';
export { runBounded, type BoundedCommand } from './bounded-command.js';
export {
  hostPathEnvironment,
  ownEnvironment,
  runProgram,
  runProgramSync,
  type ProgramCall,
  type ProgramResult,
} from './run-program.js';
export {
  checkOut,
  git,
  gitEnvironment,
  gitIdentityEnvironment,
  gitSync,
  type GitCall,
  type GitIdentity,
  type GitResult,
} from './git.js';
export { isAlive } from './liveness.js';
