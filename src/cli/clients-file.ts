// `mcp-gateway --clients FILE`: the MCP clients that may call /mcp, one token each, from a JSON file (so tokens stay
// out of the command line and the process list). The gateway checks each name and token (createMcpGateway).
import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';

const SHAPE =
  'the file is one JSON object of client name to token, e.g. { "claude-desktop": "<24+ random characters>" }';

/** The client tokens in `path`, by client name. */
export async function readClientsFile(path: string): Promise<Record<string, string>> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--clients ${path} cannot be read as JSON (${why}); ${SHAPE}`);
  }
  const entries = typeof json === 'object' && json !== null && !Array.isArray(json) ? Object.entries(json) : [];
  if (entries.length === 0 || entries.some(([, token]) => typeof token !== 'string'))
    throw new UsageError(`--clients ${path} names no clients or has a token that is not a string; ${SHAPE}`);
  return Object.fromEntries(entries) as Record<string, string>;
}
