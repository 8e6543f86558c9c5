/**
 * What breaks Once's metric names in a Prometheus text exposition: a metric without the one `once_` prefix (or with
 * two), a counter whose name does not end in `_total`. Empty when all hold.
 *
 * @example
 * expect(prometheusNamingProblems(await (await fetch(metricsUrl)).text())).toEqual([]);
 */
export const prometheusNamingProblems = (exposition: string): string[] => {
  const problems: string[] = [];
  for (const line of exposition.split('\n')) {
    const declared = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (!declared) continue;
    const [, name = '', type = ''] = declared;
    if (!name.startsWith('once_') || name.startsWith('once_once_'))
      problems.push(`${name}: not one once_ prefix`);
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: a counter without _total`);
  }
  return problems;
};
