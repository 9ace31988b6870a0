/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
export const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
