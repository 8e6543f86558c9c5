import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchmarksDocument } from './benchmarks-doc.js';
import { toChartData } from './chart-data.js';
import { renderChartSvg } from './svg-chart.js';

const resultsDirectory = fileURLToPath(new URL('../../results/', import.meta.url));
const documentPath = fileURLToPath(new URL('../../../../docs/BENCHMARKS.md', import.meta.url));

/**
 * Draws a chart next to every results file (`<name>.svg` beside `<name>.json`) and regenerates `docs/BENCHMARKS.md`,
 * from the files alone. Returns the charts it wrote.
 *
 * @example
 * await renderBenchmarkResults();
 */
export const renderBenchmarkResults = async (
  directories: { readonly results?: string; readonly document?: string } = {},
): Promise<string[]> => {
  const results = directories.results ?? resultsDirectory;
  const document = directories.document ?? documentPath;
  const files = (await readdir(results)).filter((file) => file.endsWith('.json')).sort();
  const documented = [];
  const written: string[] = [];
  for (const file of files) {
    const name = basename(file, '.json');
    const chart = toChartData(name, JSON.parse(await readFile(join(results, file), 'utf8')) as unknown);
    const chartPath = join(results, `${name}.svg`);
    await writeFile(chartPath, renderChartSvg(chart));
    written.push(chartPath);
    const documentDirectory = join(document, '..');
    documented.push({
      chart,
      resultsLink: relative(documentDirectory, join(results, file)),
      chartLink: relative(documentDirectory, chartPath),
    });
  }
  await writeFile(document, benchmarksDocument(documented));
  return written;
};
