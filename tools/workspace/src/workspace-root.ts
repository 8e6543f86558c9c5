import { fileURLToPath } from 'node:url';

/** The repository's top folder. */
export const workspaceRoot = fileURLToPath(new URL('../../../', import.meta.url));
