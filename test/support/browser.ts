// Headless Chromium for the tests that look at a page as a user would (playwright-core drives the
// machine's own browser; nothing is downloaded). Absent browser: the tests skip and say why.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** $CHROMIUM_PATH, else the first browser found where Debian and Ubuntu install it. */
export const chromiumPath: string | undefined = [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p) => p && existsSync(p));

export const NO_BROWSER_REASON = 'needs Chromium (apt-get install -y chromium, or CHROMIUM_PATH=/path/to/chrome)';

export async function launchBrowser(): Promise<Browser> {
  if (!chromiumPath) throw new Error(NO_BROWSER_REASON);
  // --no-sandbox: CI and containers run as root, where Chromium's sandbox refuses to start
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
