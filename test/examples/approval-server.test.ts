import { describe, expect, it } from 'vitest';
import { runExample } from '../support/example-process.js';
import { freePort } from '../support/free-port.js';

describe('examples/approval-server.ts (npm run demo)', () => {
  it('serves the app, prints a link whose page changes nothing and whose form approves, and reports the run completed', async () => {
    const port = await freePort();
    const { child, lines, lineMatching } = runExample('examples/approval-server.ts', { PORT: String(port) });
    try {
      expect(await lineMatching(/^approval app on /)).toBe(
        `approval app on http://127.0.0.1:${port} (insecure demo mode: no authentication)`,
      );
      const approve = (await lineMatching(/^approve in a browser: /)).replace('approve in a browser: ', '');
      const inbox = (await lineMatching(/^your inbox: /)).replace(/^your inbox:\s+/, '');
      expect(await (await fetch(inbox)).text()).toContain('Pay $12.00 to acct-42?');
      const page = await fetch(approve);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Pay $12.00 to acct-42?');
      expect(lines.some((line) => line.startsWith('decided:'))).toBe(false);
      const decided = await fetch(approve, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(decided.status).toBe(200);
      expect(await lineMatching(/^run .+ completed: /)).toMatch(/completed: Paid acct-42 \$12\.00\.$/);
      expect(lines).toContain('decided: approved by you@example.com');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
