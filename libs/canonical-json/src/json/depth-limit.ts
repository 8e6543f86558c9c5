/** How many arrays and objects may nest inside each other unless a caller says otherwise. */
export const DEFAULT_MAX_DEPTH = 64;

/** Limits shared by `canonicalize` and `parseJson`. */
export interface JsonLimits {
  /** Arrays and objects nested deeper than this are refused with `too-deep`; `[]` is depth 1. Default 64. */
  readonly maxDepth?: number;
}

export const resolveMaxDepth = (limits: JsonLimits | undefined): number => {
  const maxDepth = limits?.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(`maxDepth must be a non-negative integer, got ${String(maxDepth)}`);
  }
  return maxDepth;
};
