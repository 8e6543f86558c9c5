import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const appRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where `npm start` serves the till and console from (the api's `webAssetsDirectory`). */
export const defaultBundleDirectory = join(appRoot, 'dist', 'web');

/**
 * Bundles the till and the console (one ES module each, with `@once/client` inside) and copies their pages and style
 * sheet into `directory`.
 *
 * @example
 * await bundleWebApps('/tmp/till');
 */
export const bundleWebApps = async (directory: string): Promise<void> => {
  await mkdir(directory, { recursive: true });
  await build({
    entryPoints: { till: join(appRoot, 'src/till/main.ts'), console: join(appRoot, 'src/console/main.ts') },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    conditions: ['@once/source'],
    sourcemap: true,
    outdir: directory,
    logLevel: 'warning',
  });
  for (const file of ['till.html', 'console.html', 'style.css'])
    await copyFile(join(appRoot, 'src/pages', file), join(directory, file));
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleWebApps(process.argv[2] ?? defaultBundleDirectory);
}
