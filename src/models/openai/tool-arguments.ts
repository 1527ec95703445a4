/** Arguments the model sent as text; text that is not JSON is passed on as is, for the tool's schema to refuse. */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Arguments as the model sent them: JSON text, or the text it sent when that was not JSON. */
export function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}
