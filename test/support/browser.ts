// Headless Chromium for the tests that look at a page as a user would (playwright-core drives the
// machine's own browser; nothing is downloaded). Absent browser: the tests skip and say why.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** $CHROMIUM_PATH, else the first browser found where Debian and Ubuntu install it. */
export const chromiumPath: string | undefined = [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p) => p && existsSync(p));

export const NO_BROWSER_REASON = 'needs Chromium (apt-get install -y chromium, or CHROMIUM_PATH=/path/to/chrome)';

// --no-sandbox: CI and containers run as root, where Chromium's sandbox refuses to start. The rest keep
// a test's browser from reaching anything but the server under test (no updates, sync, QUIC probes).
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  if (!chromiumPath) throw new Error(NO_BROWSER_REASON);
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ARGS });
}

/**
 * A browser with a profile of its own, made fresh for this launch and removed at close: nothing a
 * previous run stored (session storage, cache) can make a test pass.
 */
export async function launchFreshProfile(options: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  if (!chromiumPath) throw new Error(NO_BROWSER_REASON);
  const profile = mkdtempSync(join(tmpdir(), 'switchyard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: ARGS, viewport: options.viewport ?? { width: 1280, height: 800 } });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
