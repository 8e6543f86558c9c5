import { loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages (as `uptime` prints them), to record beside every measurement. */
export const loadAverages = (): number[] => loadavg().map((value) => Number(value.toFixed(2)));
