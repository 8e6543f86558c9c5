import { emptyTillState } from './till-model.js';
import type { TillState } from './till-model.js';

const storageKey = (name: string) => `once-till:${name}`;

/** The till's state for one API key, as this browser last saved it (a fresh state the first time). */
export const loadTillState = (name: string): TillState => {
  const text = localStorage.getItem(storageKey(name));
  if (text === null) return emptyTillState();
  try {
    return { ...emptyTillState(), ...(JSON.parse(text) as Partial<TillState>) };
  } catch {
    return emptyTillState();
  }
};

/** Saves the till's state (synchronously: it is on disk before the next intent is stored). */
export const saveTillState = (name: string, state: TillState): void =>
  localStorage.setItem(storageKey(name), JSON.stringify(state));
