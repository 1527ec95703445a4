// URLs with user-info are refused wherever countersign takes a URL; these helpers check one place.
import { expect } from 'vitest';
import { ConfigError } from 'countersign';
import { thrown } from './test-kit.js';

const PASSWORD = 'pa55-SECRET-word';

/** `url` with a user name and password put in, as someone might paste it. */
export function withCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = 'user';
  parsed.password = PASSWORD;
  return parsed.href;
}

/** `create()` throws a ConfigError naming `option` and where the credential goes, and never repeats the password. */
export function expectCredentialsRefused(create: () => unknown, option: string, instead: RegExp): void {
  const error = thrown(create);
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).toContain(`${option} must not carry a user name or password`);
  expect(message).toMatch(instead);
  expect(message).not.toContain(PASSWORD);
}
