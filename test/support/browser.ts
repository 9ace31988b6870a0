import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium: the browser tests drive it, never a downloaded one. */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

/**
 * Launches Debian's Chromium headless, with nothing that reaches out (no
 * background networking, component updates or sync). Playwright gives each
 * launch a fresh profile folder of its own (`--user-data-dir`), removed at close,
 * and each context (`browser.newContext()`) its own cookies. `extraArgs` adds
 * flags, e.g. `--host-resolver-rules` to give a loopback server a name of its own.
 */
export const launchChromium = (extraArgs: readonly string[] = []): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });

/** Where the console's screenshots go (CI keeps the folder; git ignores it): artifacts/console at the project's root. */
export const SCREENSHOTS = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'artifacts', 'console');

/** A full-page screenshot named `<name>-<width>.png` under SCREENSHOTS. */
export const screenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}-${page.viewportSize()?.width ?? 0}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
};
