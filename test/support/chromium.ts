// Debian's Chromium for the browser tests (playwright-core drives it; a test tool's own browser download does not
// work here): whether it is installed (CI must have it), and how it is launched.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const executablePath = '/usr/bin/chromium';

/** True when Chromium is installed; on CI its absence is an error, never a skip. */
export const hasChromium = existsSync(executablePath);
if (!hasChromium && process.env['CI'])
  throw new Error(`CI needs Chromium at ${executablePath}: apt-get install chromium`);

/** A headless Chromium with nothing of its own on the network (no sync, updates or background fetches). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
