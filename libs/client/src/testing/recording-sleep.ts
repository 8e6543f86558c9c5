import type { Sleep } from '../client/index.js';

/**
 * A sleep that records every requested wait and returns at once, so retry tests run in milliseconds and can
 * check the waits the policy chose.
 */
export const createRecordingSleep = (): { readonly sleep: Sleep; readonly waits: number[] } => {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
};
