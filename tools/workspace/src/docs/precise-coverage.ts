import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative, sep } from 'node:path';

/** Counts functions called in this isolate between two `take`s: V8's precise coverage through `node:inspector`. */
export interface FunctionCallRecorder {
  /** The repository files (relative, `/`-separated) in which at least one function ran since the last `take`. */
  take(): Promise<ReadonlySet<string>>;
  stop(): Promise<void>;
}

/** A repository source file of an app or a library: not a dependency, not a test helper. */
const isRepositorySource = (file: string): boolean =>
  /^(apps|libs)\/[^/]+\/src\//.test(file) &&
  !file.startsWith('libs/testing/') &&
  !file.includes('/testing/') &&
  !/\.spec\.ts$/.test(file);

/**
 * Starts counting calls (`callCount: true`, per function). Each `take` reads the counts and resets them, so what a
 * `take` answers ran after the one before it.
 *
 * @example
 * const calls = await recordFunctionCalls(workspaceRoot);
 * await calls.take(); // forget what ran so far
 * await work();
 * const files = await calls.take();
 */
export const recordFunctionCalls = async (workspaceRoot: string): Promise<FunctionCallRecorder> => {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  return {
    take: async () => {
      const { result } = await session.post('Profiler.takePreciseCoverage');
      const files = new Set<string>();
      for (const script of result) {
        if (!script.url.startsWith('file:')) continue;
        if (!script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) continue;
        const file = relative(workspaceRoot, fileURLToPath(script.url)).split(sep).join('/');
        if (isRepositorySource(file)) files.add(file);
      }
      return files;
    },
    stop: async () => {
      await session.post('Profiler.stopPreciseCoverage');
      await session.post('Profiler.disable');
      session.disconnect();
    },
  };
};
