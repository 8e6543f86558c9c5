/**
 * Which measured files are rows of the walk in docs/ARCHITECTURE.md: every file of the write side a card payment
 * runs, that is the libraries that decide and record it and the api's folder of the route. The rest of what the
 * request runs, the api's shared HTTP infrastructure (`app.ts`, `apps/api/src/http/`) and the utility library
 * `libs/canonical-json`, is counted in one summary line.
 */
export const walkFolders = [
  'apps/api/src/invoices/',
  'libs/cafe/',
  'libs/domain/',
  'libs/event-store/',
  'libs/idempotency/',
] as const;

/** A measured file is a walk row when it lies in one of `walkFolders`; otherwise it is infrastructure. */
export const isWalkFile = (file: string): boolean => walkFolders.some((folder) => file.startsWith(folder));

/** The walk rows and the infrastructure files of a measurement, each sorted. */
export const splitMeasuredFiles = (
  measured: readonly string[],
): { readonly walk: readonly string[]; readonly infrastructure: readonly string[] } => ({
  walk: measured.filter(isWalkFile).sort(),
  infrastructure: measured.filter((file) => !isWalkFile(file)).sort(),
});
