import type { RebuildProgress } from '@once/projections';

export interface ProgressDisplay {
  update(progress: RebuildProgress): void;
  /** Ends the current line (the bar) before other output. */
  finish(): void;
}

const formatDuration = (seconds: number | undefined): string => {
  if (seconds === undefined || !Number.isFinite(seconds)) return '--:--';
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return `${String(minutes).padStart(2, '0')}:${String(whole % 60).padStart(2, '0')}`;
};

const formatRate = (eventsPerSecond: number): string =>
  `${Math.round(eventsPerSecond).toLocaleString('en-US')} events/s`;

/**
 * A progress bar redrawn in place on a terminal, or plain lines (at most one per `lineIntervalMs`) otherwise.
 *
 * @example
 * const display = createProgressDisplay(process.stdout);
 */
export const createProgressDisplay = (
  stream: NodeJS.WriteStream,
  options: { readonly lineIntervalMs?: number; readonly now?: () => number } = {},
): ProgressDisplay => {
  const now = options.now ?? Date.now;
  const lineIntervalMs = options.lineIntervalMs ?? 2000;
  let lastLine = Number.NEGATIVE_INFINITY;
  let drawn = false;
  let finished = false;
  if (stream.isTTY) {
    return {
      update: (progress) => {
        const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 60));
        const fraction = progress.fraction;
        const filled = fraction === undefined ? 0 : Math.round(fraction * width);
        const bar =
          fraction === undefined ? '?'.repeat(width) : `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
        const percent =
          fraction === undefined ? '  ?%' : `${String(Math.floor(fraction * 100)).padStart(3)}%`;
        stream.write(
          `\r${progress.label} ${bar} ${percent} ${progress.events.toLocaleString('en-US')} events ${formatRate(progress.eventsPerSecond)} ETA ${formatDuration(progress.etaSeconds)}\u001b[K`,
        );
        drawn = true;
      },
      finish: () => {
        if (drawn) stream.write('\n');
        drawn = false;
      },
    };
  }
  return {
    update: (progress) => {
      const at = now();
      const done = progress.fraction === 1;
      if (done ? finished : at - lastLine < lineIntervalMs) return;
      finished = done;
      lastLine = at;
      const percent = progress.fraction === undefined ? '?' : `${(progress.fraction * 100).toFixed(1)}%`;
      stream.write(
        `${progress.label}: ${progress.events} events, ${percent}, ${formatRate(progress.eventsPerSecond)}, ETA ${formatDuration(progress.etaSeconds)}\n`,
      );
    },
    finish: () => undefined,
  };
};
