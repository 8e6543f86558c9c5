import type { ProjectionLogger } from '../runner/projection-definition.js';
import { abortableSleep } from '../runner/abortable-sleep.js';

/** Work repeated beside the projections, one round every `intervalMs` (the completer, the key sweep). */
export interface ProjectorTask {
  /** Names the task in the log. */
  readonly name: string;
  /** Pause before each round (ms). */
  readonly intervalMs: number;
  /** One round; a failed round is logged and the next one runs as usual. */
  readonly run: (logger: ProjectionLogger) => Promise<void>;
}

/** A task running on its own. */
export interface RunningTask {
  /** Ends the loop after the round in hand. */
  stop(): Promise<void>;
}

/**
 * Runs a task's rounds until stopped: in a projector, or on its own.
 *
 * @example
 * const sweeper = startTask(expiredKeySweeper(pool, store), logger);
 * await sweeper.stop();
 */
export const startTask = (task: ProjectorTask, logger: ProjectionLogger): RunningTask => {
  const stopController = new AbortController();
  const loop = async (): Promise<void> => {
    while (!stopController.signal.aborted) {
      await abortableSleep(task.intervalMs, stopController.signal);
      if (stopController.signal.aborted) break;
      await task
        .run(logger)
        .catch((error: unknown) => logger.error({ task: task.name, err: error }, 'projector task failed'));
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopController.abort();
      await running;
    },
  };
};
