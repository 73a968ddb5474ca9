// Shared by the browser tests and the screenshot script: serves dist/ with a
// throwaway static server on a free loopback port and drives Debian's
// Chromium, headless, through playwright-core (which never downloads a
// browser).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = process.env.KZ_DIST ?? path.join(ROOT, 'dist');
export const CHROMIUM = process.env.KZ_CHROMIUM ?? '/usr/bin/chromium';
export const TIMEOUT_MS = 20_000;

/** base64url without padding, as `#kzs=` wants it. */
export const base64url = (text) => Buffer.from(text, 'utf8').toString('base64url');

/**
 * The q-quantile of `xs` by nearest rank: the smallest sample with at least
 * a fraction q of the samples at or below it. (p95 of 20 samples is the
 * 19th, not the largest: `floor(q·n)`, used before, made it the maximum.)
 */
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)];
};

/**
 * `n` seek targets in 1..`within`, the same every run (a linear congruential
 * sequence), so that perf.mjs and profile.mjs seek to the same steps and a
 * longer run's first targets are a shorter run's.
 */
export function seekTargets(within, n) {
  const out = [];
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.push(1 + (x % within));
  }
  return out;
}

/** The built-in scenarios: every static/scenarios/*.kzs, by name. */
export function builtIns() {
  const dir = path.join(ROOT, 'static/scenarios');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.kzs'))
    .sort()
    .map((f) => ({ name: f.slice(0, -4), text: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/** Starts `python3 -m http.server` on port 0 and resolves to its address. */
function startServer(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the static server did not start: ${out}`)), 10_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the static server exited (${code}): ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${m[1]}` });
      }
    });
    child.stderr.on('data', () => {}); // request log: not needed, but must be drained
  });
}

/** Serves dist/ and starts Chromium; `close()` undoes both. */
export async function start({ width = 1280, height = 800 } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error(`${DIST}/index.html is missing: run scripts/trunk.sh build --release first`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup.sh`);
  const { child: server, url: base } = await startServer(DIST);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kzsim-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
    viewport: { width, height },
    // With no &lang= the page follows the browser's language: the tests read
    // English unless they ask for Chinese (i18n.test.mjs sets its own locale).
    locale: 'en-US',
  });

  /** Opens a page that records page errors, dialogs and every request's origin. */
  async function open(address, { viewport } = {}) {
    const page = await context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    const problems = [];
    const foreign = [];
    const dialogs = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(`${base}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    await page.goto(`${base}${address}`);
    // The Yew app has rendered once its title is in the page.
    await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
    return { page, problems, foreign, dialogs };
  }

  async function close() {
    await context.close();
    if (server.exitCode === null) {
      server.removeAllListeners('exit');
      server.kill();
    }
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }

  return { base, context, open, close };
}

/** The step counter as a number. */
export async function stepOf(page) {
  return Number((await page.getByTestId('step-counter').textContent()).trim());
}

/** Waits until the step counter shows `n` (for at most `timeout` ms). */
export async function waitStep(page, n, timeout = TIMEOUT_MS) {
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid="step-counter"]')?.textContent.trim() === String(n),
    n,
    { timeout },
  );
}

/** Presses "run to the end" and waits until it is done. */
export async function runToEnd(page) {
  await page.getByTestId('to-end').click();
  await waitEnd(page);
}

/** Waits until "run to the end" is done (the timeline's max equals the step and the end badge shows). */
export async function waitEnd(page) {
  await page.waitForFunction(
    () => {
      const t = document.querySelector('[data-testid="timeline"]');
      const c = document.querySelector('[data-testid="step-counter"]');
      return t && c && document.querySelector('.kz-end-badge') && t.max === c.textContent.trim();
    },
    null,
    { timeout: 60_000 },
  );
}
