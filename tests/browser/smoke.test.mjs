// Browser smoke test of the built app (dist/, from `trunk build --release`):
// it loads, names itself, fetches nothing from elsewhere, and reports bad
// input as an error instead of dying. Run: `node --test` in this folder;
// scripts/test.sh does, after building dist/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, TIMEOUT_MS, base64url, start } from './harness.mjs';

let browser;

before(async () => {
  browser = await start();
});

after(async () => {
  await browser?.close();
});

test('the default scenario loads at step 0: title, no error, nothing from another origin', async () => {
  const { page, problems, foreign } = await browser.open('/');
  assert.equal((await page.getByTestId('title').textContent()).trim(), 'Kafka ZK Sandbox');
  assert.match(await page.title(), /Kafka ZK Sandbox/);
  assert.equal((await page.getByTestId('step-counter').textContent()).trim(), '0');
  assert.equal(await page.getByTestId('error').count(), 0, 'the default scenario shows an error');
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign, [], 'the page fetched from another origin');
  await page.close();
});

test('a broken #kzs scenario shows the located error and the page stays up', async () => {
  const { page, problems } = await browser.open(`/#kzs=${base64url('zk-session a\nfrobnicate')}`);
  const error = page.getByTestId('error');
  await error.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await error.textContent(), /^#kzs:2:\d+: error: /);
  // Usable: the controls answer, the editor shows the faulty line.
  await page.getByTestId('step-forward').click();
  assert.equal((await page.getByTestId('step-counter').textContent()).trim(), '0');
  assert.equal(await page.locator('.kz-gutter .kz-bad-line').textContent(), '2');
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a #kzs value that is not base64url shows an error', async () => {
  const { page } = await browser.open('/#kzs=not*base64');
  const error = page.getByTestId('error');
  await error.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await error.textContent(), /base64url/);
  await page.close();
});

test('an unknown scenario name shows an error naming the built-ins', async () => {
  const { page, problems } = await browser.open('/?scenario=no-such-story');
  const error = page.getByTestId('error');
  await error.waitFor({ timeout: TIMEOUT_MS });
  assert.match(await error.textContent(), /no-such-story.*zk-basics/);
  // The picker still works: choose a built-in.
  await page.getByTestId('scenario-picker').selectOption('zk-basics');
  assert.equal(await page.getByTestId('error').count(), 0);
  await page.getByTestId('step-forward').click();
  assert.equal((await page.getByTestId('step-counter').textContent()).trim(), '1');
  // The address follows once the page is quiet (a run of steps writes it once).
  await page.waitForURL(/scenario=zk-basics&step=1/, { timeout: TIMEOUT_MS });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the built-in scenarios are served from dist/scenarios', async () => {
  const response = await fetch(`${browser.base}/scenarios/zk-basics.kzs`);
  assert.equal(response.status, 200);
  const expected = fs.readFileSync(path.join(ROOT, 'static/scenarios/zk-basics.kzs'), 'utf8');
  assert.equal(await response.text(), expected);
});

test('changing the fragment by hand loads the new #kzs scenario without a reload', async () => {
  const { page, problems } = await browser.open(`/#kzs=${base64url('zk-session a\nzk a create /first 1\n')}&step=2`);
  await page.locator('[data-znode-path="/first"]').waitFor({ timeout: TIMEOUT_MS });
  await page.evaluate(() => (window.__sameDocument = true));
  await page.goto(`${browser.base}/#kzs=${base64url('zk-session a\nzk a create /second 2\n')}&step=2`);
  await page.locator('[data-znode-path="/second"]').waitFor({ timeout: TIMEOUT_MS });
  assert.equal(await page.locator('[data-znode-path="/first"]').count(), 0);
  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was reloaded');
  assert.deepEqual(problems, []);
  await page.close();
});
