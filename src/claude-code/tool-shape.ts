// One of Claude Code's tools as it is put to a person: what they see (and may edit), the line that says what is
// asked, and the tool's input again from what they approved.

/** A tool's input, or what a person is shown of it: plain JSON. */
export type Json = Record<string, unknown>;

/** One tool's way to a person and back. */
export interface ToolShape {
  /** What the person sees and may edit, from the tool's input (real values). */
  view(input: Json): Json;
  /** The tool's input from an approved view (real values); an edit that does not fit throws an `EditIssue`. */
  input(view: Json, original: Json): Json;
  /** What is asked, in one line, from the view the person is shown. */
  describe(view: Json): string;
}

export const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value for the one-line description: its first line, cut at 160 characters, with `…` where anything is left out. */
export function line(value: unknown): string {
  const whole = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const first = whole.split('\n', 1)[0]!.slice(0, 160);
  return first.length < whole.length ? `${first}…` : first;
}

/** A tool shown with its input as it is. */
export const asIs = (describe: (view: Json) => string): ToolShape => ({
  view: (input) => input,
  input: (view) => view,
  describe,
});
