// Shared timing helpers for the benchmarks: warm up, sample, report median and p99.
import { performance } from 'node:perf_hooks';

export interface Sample {
  readonly name: string;
  readonly median: number;
  readonly p99: number;
  readonly iterations: number;
}

/** The value at quantile `p` (0 to 1) of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

/** Times `body` `iterations` times after `warmup` runs; durations in milliseconds. */
export async function measure(
  name: string,
  body: () => unknown,
  options: { iterations?: number; warmup?: number } = {},
): Promise<Sample> {
  const iterations = options.iterations ?? 1000;
  for (let index = 0; index < (options.warmup ?? Math.min(200, iterations)); index++) await body();
  const durations: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    await body();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { name, median: percentile(durations, 0.5), p99: percentile(durations, 0.99), iterations };
}

/** Formats milliseconds with a unit that keeps three significant digits. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  return `${ms.toPrecision(3)} ms`;
}

/** A table row of `times`: name, median, p99, max and how many samples (headers: measure, median, p99, max, samples). */
export function percentileRow(name: string, times: readonly number[]): (string | number)[] {
  const sorted = [...times].sort((a, b) => a - b);
  return [
    name,
    formatDuration(percentile(sorted, 0.5)),
    formatDuration(percentile(sorted, 0.99)),
    formatDuration(sorted.at(-1)!),
    sorted.length,
  ];
}

/** Prints a Markdown table. */
export function printTable(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): void {
  const lines = [`\n### ${title}\n`, `| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
