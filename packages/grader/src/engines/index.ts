// The bundled engines as other packages run them: by the path of their compiled program. This file only re-exports.

export { BUNDLED_ENGINES, engineProgram, engineProgramPaths, type BundledEngine } from './programs.js';
export { ORACLE_ENGINES, ORACLE_MODEL, writeOracleRun } from './oracle-run.js';
export {
  REAL_ENGINES,
  realEngineAdapter,
  realEngineBinary,
  realEngineKey,
  realEnginePins,
  realEngineProvider,
  type Endpoint,
  type RealEngine,
  type RealEngineOptions,
} from './real-engines.js';
