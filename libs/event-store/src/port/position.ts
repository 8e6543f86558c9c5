import type { GlobalPosition } from './event-store.js';

/** Orders two global positions: negative when `a` comes first. */
export const comparePositions = (a: GlobalPosition, b: GlobalPosition): number =>
  a.commit !== b.commit
    ? a.commit < b.commit
      ? -1
      : 1
    : a.prepare === b.prepare
      ? 0
      : a.prepare < b.prepare
        ? -1
        : 1;

/** A position as text that sorts the same way as `comparePositions` (for checkpoints stored as text). */
export const formatPosition = (position: GlobalPosition): string =>
  `${position.commit.toString().padStart(20, '0')}:${position.prepare.toString().padStart(20, '0')}`;

/** Reads a position written by `formatPosition`; undefined when the text is not one. */
export const parsePosition = (text: string): GlobalPosition | undefined => {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(text);
  return match ? { commit: BigInt(match[1] as string), prepare: BigInt(match[2] as string) } : undefined;
};
