import { escapeHtml as e } from '../../kit/index.js';
import { shownName } from './console-text.js';

/** One bar: what it is about, its length (0 to the chart's `max`), and the value as text. */
export interface Bar {
  readonly label: string;
  readonly value: number;
  readonly text: string;
}

const LABEL_WIDTH = 180;
const BAR_WIDTH = 300;
const ROW_HEIGHT = 24;
/** How much of a label the chart shows; the table beside it holds the whole name. */
const LABEL_CHARS = 24;

/**
 * A horizontal bar chart as inline SVG (no script, no inline style: the console's CSP allows neither), one bar a row,
 * each with its label, its value as text, and a `<title>` naming both in full for a screen reader or a pointer.
 */
export function barChart(caption: string, bars: readonly Bar[], max: number): string {
  const height = bars.length * ROW_HEIGHT;
  const rows = bars
    .map((bar, index) => {
      const y = index * ROW_HEIGHT;
      const name = shownName(bar.label);
      const short = name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name;
      const width = max > 0 ? Math.max(0, Math.min(1, bar.value / max)) * BAR_WIDTH : 0;
      return (
        `<g><title>${e(`${name}: ${bar.text}`)}</title>` +
        `<text x="0" y="${y + 16}">${e(short)}</text>` +
        `<rect class="bar" x="${LABEL_WIDTH}" y="${y + 4}" width="${width.toFixed(1)}" height="${ROW_HEIGHT - 8}"></rect>` +
        `<text x="${LABEL_WIDTH + width + 6}" y="${y + 16}">${e(bar.text)}</text></g>`
      );
    })
    .join('');
  return (
    `<figure class="chart"><figcaption>${e(caption)}</figcaption>` +
    `<svg role="img" aria-label="${e(caption)}" viewBox="0 0 ${LABEL_WIDTH + BAR_WIDTH + 80} ${height}" ` +
    `width="${LABEL_WIDTH + BAR_WIDTH + 80}" height="${height}">${rows}</svg></figure>`
  );
}
