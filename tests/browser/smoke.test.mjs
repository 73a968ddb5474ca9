// Browser smoke test of the built app (dist/, from `trunk build --release`).
//
// Serves dist/ with a throwaway static server on a free loopback port and
// drives Debian's Chromium, headless, through playwright-core (which never
// downloads a browser). Run: `node --test` in this folder; scripts/test.sh
// does, after building dist/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.KZ_DIST ?? path.join(ROOT, 'dist');
const CHROMIUM = process.env.KZ_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOT = path.join(ROOT, 'docs/screenshots/placeholder.png');
const TIMEOUT_MS = 20_000;

let server;
let base;
let context;
let userDataDir;

/** base64url without padding, as `#kzs=` wants it. */
const base64url = (text) => Buffer.from(text, 'utf8').toString('base64url');

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

/** Opens a page that records page errors and every request's origin. */
async function openPage(address) {
  const page = await context.newPage();
  const problems = [];
  const foreign = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${base}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
  });
  await page.goto(`${base}${address}`);
  // The Yew app has rendered once its title is in the page.
  await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
  return { page, problems, foreign };
}

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')), `${DIST}/index.html is missing: run trunk build --release first`);
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/setup.sh`);
  ({ child: server, url: base } = await startServer(DIST));
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kzsim-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
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
    viewport: { width: 1280, height: 800 },
  });
});

after(async () => {
  await context?.close();
  if (server && server.exitCode === null) {
    server.removeAllListeners('exit');
    server.kill();
  }
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
});

test('the built-in scenario loads: title, parsed script, no error', async () => {
  const { page, problems, foreign } = await openPage('/');
  assert.equal(await page.title(), 'Kafka ZK Sandbox');
  assert.equal((await page.getByTestId('title').textContent()).trim(), 'Kafka ZK Sandbox');
  const summary = page.getByTestId('parse-summary');
  await summary.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await summary.textContent(), /^\d+ commands? parsed/);
  assert.equal(await page.getByTestId('error').count(), 0, 'the built-in scenario shows an error');
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign, [], 'the page fetched from another origin');
  await page.close();
});

test('a broken #kzs scenario shows the located error and the page stays up', async () => {
  const { page, problems } = await openPage(`/#kzs=${base64url('frobnicate')}`);
  const error = page.getByTestId('error');
  await error.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await error.textContent(), /^#kzs:1:\d+: error: /);
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a #kzs value that is not base64url shows an error', async () => {
  const { page } = await openPage('/#kzs=not*base64');
  const error = page.getByTestId('error');
  await error.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await error.textContent(), /base64url/);
  await page.close();
});

test('the built-in scenarios are served from dist/scenarios', async () => {
  const response = await fetch(`${base}/scenarios/zk-basics.kzs`);
  assert.equal(response.status, 200);
  const expected = fs.readFileSync(path.join(ROOT, 'static/scenarios/zk-basics.kzs'), 'utf8');
  assert.equal(await response.text(), expected);
});
