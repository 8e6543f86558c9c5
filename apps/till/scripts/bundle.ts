import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const appRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where `npm start` serves the till and console from (the api's `webAssetsDirectory`). */
export const defaultBundleDirectory = join(appRoot, 'dist', 'web');

/** The HTML page of one app: the style sheet and the app's module, which draws into `#app`. */
const page = (title: string, script: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/web/style.css" />
  </head>
  <body>
    <div id="app"></div>
    <script type="module" src="/web/${script}.js"></script>
  </body>
</html>
`;

/**
 * Bundles the till and the console (one ES module each, with `@once/client` inside) and writes their pages and style sheet
 * into `directory`.
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
  await copyFile(join(appRoot, 'src/pages/style.css'), join(directory, 'style.css'));
  await writeFile(join(directory, 'till.html'), page('Once till', 'till'));
  await writeFile(join(directory, 'console.html'), page('Once console', 'console'));
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleWebApps(process.argv[2] ?? defaultBundleDirectory);
}
