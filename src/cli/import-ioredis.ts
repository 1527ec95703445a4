import { ConfigError } from '../errors.js';

/**
 * ioredis, loaded only by the commands that use Redis (`what`: `--redis`, `worker`); it is an optional peer
 * dependency, so where it is not installed the error says how to install it instead of Node's module error.
 */
export async function importIoredis(what: string): Promise<{ Redis: typeof import('ioredis').Redis }> {
  try {
    return await import('ioredis');
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(message).includes("'ioredis'")) throw error;
    throw new ConfigError(
      `${what} needs ioredis, which is not installed where countersign runs; install ioredis: npm i ioredis`,
      'missing_option',
    );
  }
}
