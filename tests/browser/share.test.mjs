// Teach and share (issue 7): embeds locked to a range, the example
// documentation page with three live figures, autoplay that pauses off
// screen, the trace downloaded and opened again, a scenario dropped on the
// page, an edit that survives a reload, and long scenarios compressed in
// the address.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { TIMEOUT_MS, base64url, start, stepOf, waitStep } from './harness.mjs';

let browser;

before(async () => {
  browser = await start();
});

after(async () => {
  await browser?.close();
});

async function clean({ page, problems, foreign }) {
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign, [], 'the page fetched from another origin');
}

/** The step counter of a frame (an embedded figure). */
async function frameStep(frame) {
  return Number((await frame.getByTestId('step-counter').textContent()).trim());
}

describe('embeds', () => {
  test('an embed locked to a range shows only its panels and stays in the range', async () => {
    const opened = await browser.open('/?scenario=controller-failover&embed=1&panels=tree,explain&from=25&to=40');
    const { page } = opened;
    assert.equal(await stepOf(page), 25, 'a figure opens at its first step');
    assert.equal(await page.getByTestId('znode-tree').count(), 1);
    assert.equal(await page.getByTestId('explanation').count(), 1);
    assert.equal(await page.getByTestId('broker').count(), 0, 'brokers were not asked for');
    assert.equal(await page.getByTestId('editor').count(), 0, 'no scenario editor in an embed');
    const slider = page.getByTestId('timeline');
    assert.equal(await slider.getAttribute('min'), '25');
    assert.equal(await slider.getAttribute('max'), '40');
    await page.getByTestId('step-back').click();
    assert.equal(await stepOf(page), 25, 'nothing before the range');
    await page.getByTestId('to-end').click();
    await waitStep(page, 40);
    await page.getByTestId('step-forward').click();
    await page.waitForTimeout(200);
    assert.equal(await stepOf(page), 40, 'nothing after the range');
    await page.getByTestId('reset').click();
    await waitStep(page, 25);
    // The embed's own link opens the full sandbox, in a new tab, at this step.
    const full = page.getByTestId('open-full');
    assert.equal(await full.getAttribute('target'), '_blank');
    const href = await full.getAttribute('href');
    assert.match(href, /scenario=controller-failover&step=25/);
    assert.doesNotMatch(href, /embed|from=|to=|panels=/);
    await clean(opened);
  });

  test('the example documentation page runs three live figures', async () => {
    const page = await browser.context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${browser.base}/example.html`);
    // Three figures: one iframe, two <kzsim-sandbox> elements (each its own iframe).
    await page.waitForFunction(() => document.querySelectorAll('kzsim-sandbox').length === 2 && [...document.querySelectorAll('kzsim-sandbox')].every((e) => e.shadowRoot?.querySelector('iframe')));
    const figures = ['election', 'failover', 'ephemeral'];
    const frames = {};
    for (const name of figures) {
      const host = page.locator(`[data-figure="${name}"]`);
      await host.scrollIntoViewIfNeeded();
      const handle = await (name === 'election' ? host.elementHandle() : host.evaluateHandle((e) => e.shadowRoot.querySelector('iframe')));
      const frame = await handle.asElement().contentFrame();
      await frame.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
      assert.equal(await frame.getByTestId('error').count(), 0, `figure ${name} shows an error`);
      frames[name] = frame;
    }
    // Figure 1 is locked to steps 25..68 and steps by hand.
    const one = frames.election;
    assert.equal(await frameStep(one), 25);
    await one.getByTestId('step-forward').click();
    await one.waitForFunction(() => document.querySelector('[data-testid="step-counter"]').textContent.trim() === '26');
    // Figure 3 carries its scenario inline (#kzs) and plays on its own.
    const three = frames.ephemeral;
    await page.locator('[data-figure="ephemeral"]').scrollIntoViewIfNeeded();
    await three.waitForFunction(() => Number(document.querySelector('[data-testid="step-counter"]').textContent) > 0, null, { timeout: TIMEOUT_MS });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('autoplay plays on screen and pauses when scrolled away or hidden', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.goto(`${browser.base}/example.html`);
    const host = page.locator('[data-figure="failover"]');
    await host.scrollIntoViewIfNeeded();
    const frame = await (await host.evaluateHandle((e) => e.shadowRoot.querySelector('iframe'))).asElement().contentFrame();
    await frame.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
    const playing = () => frame.getByTestId('play-pause').getAttribute('aria-pressed');
    await frame.waitForFunction(() => document.querySelector('[data-testid="play-pause"]').getAttribute('aria-pressed') === 'true', null, { timeout: TIMEOUT_MS });
    const first = await frameStep(frame);
    await page.waitForTimeout(400);
    assert.ok((await frameStep(frame)) !== first || (await playing()) === 'true', 'it plays while seen');
    // Scroll the figure far out of view: it pauses, and its step stands still.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await frame.waitForFunction(() => document.querySelector('[data-testid="play-pause"]').getAttribute('aria-pressed') === 'false', null, { timeout: TIMEOUT_MS });
    const parked = await frameStep(frame);
    await page.waitForTimeout(600);
    assert.equal(await frameStep(frame), parked, 'no stepping off screen');
    // Back on screen it plays again.
    await host.scrollIntoViewIfNeeded();
    await frame.waitForFunction(() => document.querySelector('[data-testid="play-pause"]').getAttribute('aria-pressed') === 'true', null, { timeout: TIMEOUT_MS });
    // A hidden tab pauses it too (the visibilitychange the browser sends).
    await frame.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await frame.waitForFunction(() => document.querySelector('[data-testid="play-pause"]').getAttribute('aria-pressed') === 'false', null, { timeout: TIMEOUT_MS });
    await page.close();
  });
});

test('the language switch changes the page in place: an open tour stays open', async () => {
  const opened = await browser.open('/?scenario=controller-failover');
  const { page } = opened;
  await page.getByTestId('tour-start').click();
  await page.getByTestId('tour').waitFor({ timeout: TIMEOUT_MS });
  await page.getByTestId('tour-next').click();
  const beat = await page.getByTestId('tour-beat').textContent();
  await page.locator('[data-testid="lang-switch"] [data-lang="zh"]').click();
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.getByTestId('tour').waitFor({ timeout: TIMEOUT_MS });
  assert.notEqual(await page.getByTestId('tour-beat').textContent(), beat, 'the same beat, now in Chinese');
  await page.waitForURL(/lang=zh/, { timeout: TIMEOUT_MS });
  await clean(opened);
});

test('a long run to the end shows its progress and stops when pressed again', async () => {
  // Long enough that no machine reaches its end before the test stops it
  // (the test stops it after a second or two, so the length costs nothing).
  const long = `cluster brokers=50\nstart all\ntopic create big partitions=3000 replication-factor=3\nrun 10s\nkill broker 0\nrun 3600s\n`;
  const opened = await browser.open(`/#kzs=${base64url(long)}`);
  const { page } = opened;
  await page.getByTestId('to-end').click();
  await page.getByTestId('to-end-progress').waitFor({ timeout: TIMEOUT_MS });
  assert.equal(await page.getByTestId('to-end').getAttribute('aria-busy'), 'true');
  // The page stays live while it runs: the help overlay opens at once.
  await page.keyboard.press('?');
  await page.getByTestId('help').waitFor({ timeout: 2000 });
  await page.keyboard.press('Escape');
  await page.getByTestId('to-end').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="to-end"]').getAttribute('aria-busy') === 'false', null, { timeout: TIMEOUT_MS });
  const stopped = await stepOf(page);
  await page.waitForTimeout(500);
  assert.equal(await stepOf(page), stopped, 'stopped where it got to');
  assert.equal(await page.locator('.kz-end-badge').count(), 0, 'short of the end');
  await clean(opened);
});

describe('sharing and saving', () => {
  test('a trace downloaded is the --trace schema and opens again at the same step', async () => {
    const opened = await browser.open('/?scenario=zk-basics&step=6');
    const { page } = opened;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-trace').click()]);
    assert.match(download.suggestedFilename(), /^zk-basics-step-6\.trace\.json$/);
    const file = await download.path();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 6);
    for (const [i, line] of lines.entries()) {
      assert.equal(line.step, i + 1);
      for (const field of ['time_ms', 'actor', 'kind', 'summary', 'source', 'detail']) assert.ok(field in line, `${field} in line ${i + 1}`);
    }
    assert.equal(lines[0].scenario.name, 'zk-basics');
    // Open it from another scenario: back to zk-basics at step 6.
    const other = await browser.open('/?scenario=controller-failover');
    await other.page.getByTestId('open-file').setInputFiles(file);
    await waitStep(other.page, 6);
    assert.equal(await other.page.getByTestId('scenario-picker').inputValue(), 'zk-basics');
    await clean(opened);
    await clean(other);
  });

  test('the sequence diagram downloads as a standalone SVG', async () => {
    const { page } = await browser.open('/?scenario=controller-failover&step=40');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-svg').click()]);
    assert.match(download.suggestedFilename(), /\.sequence\.svg$/);
    const svg = fs.readFileSync(await download.path(), 'utf8');
    assert.match(svg, /^<\?xml/);
    assert.match(svg, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, /style="[^"]*fill:/, 'colours travel inline');
  });

  test('a scenario dropped on the page opens; a foreign file is refused with a reason', async () => {
    const opened = await browser.open('/?scenario=zk-basics');
    const { page } = opened;
    const drop = (name, text) =>
      page.evaluate(
        ([name, text]) => {
          const data = new DataTransfer();
          data.items.add(new File([text], name, { type: 'text/plain' }));
          const app = document.querySelector('.kz-app');
          app.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
          app.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
        },
        [name, text],
      );
    await drop('mine.kzs', 'zk-session dropped\nzk dropped create /from-a-drop yes\n');
    await page.waitForFunction(() => document.querySelector('[data-testid="editor"]').value.includes('/from-a-drop'));
    await page.getByTestId('to-end').click();
    await page.locator('[data-znode-path="/from-a-drop"]').waitFor({ timeout: TIMEOUT_MS });
    await drop('cli.json', '{"step":1,"time_ms":0,"actor":"zk","kind":"zk-session","summary":"","source":"","detail":{}}\n');
    await page.getByTestId('error').filter({ hasText: 'without its scenario' }).waitFor({ timeout: TIMEOUT_MS });
    assert.equal(await page.locator('[data-znode-path="/from-a-drop"]').count(), 1, 'the page stays as it was');
    await clean(opened);
  });

  test('an edited scenario survives a reload, until discarded', async () => {
    const { page } = await browser.open('/?scenario=zk-basics');
    const editor = page.getByTestId('editor');
    const original = await editor.inputValue();
    await editor.fill(`${original}\n# my own line\n`);
    await page.reload();
    await page.getByTestId('title').waitFor();
    await page.getByTestId('editor-restored').waitFor({ timeout: TIMEOUT_MS });
    assert.match(await page.getByTestId('editor').inputValue(), /# my own line/);
    await page.getByTestId('editor-discard').click();
    assert.equal(await page.getByTestId('editor').inputValue(), original);
    await page.reload();
    await page.getByTestId('title').waitFor();
    assert.equal(await page.getByTestId('editor-restored').count(), 0);
  });

  test('a long scenario travels compressed in its link; plain base64url still opens', async () => {
    const long = `zk-session a\n${Array.from({ length: 150 }, (_, i) => `zk a create /n${i % 10}-${i} "a value that repeats"`).join('\n')}\n`;
    const { page } = await browser.open('/');
    await page.getByTestId('editor').fill(long);
    await page.getByTestId('editor-load').click();
    await page.waitForFunction(() => location.hash.startsWith('#kzs=~'));
    const hash = await page.evaluate(() => location.hash);
    const plain = base64url(long);
    assert.ok(hash.length * 3 < plain.length, `compressed ${hash.length} vs plain ${plain.length}`);
    const again = await browser.open(`/${hash}`);
    assert.equal(await again.page.getByTestId('editor').inputValue(), long);
    const plainOpened = await browser.open(`/#kzs=${plain}`);
    assert.equal(await plainOpened.page.getByTestId('editor').inputValue(), long);
    const share = await page.getByTestId('share-link').inputValue();
    assert.ok(share.endsWith(hash.replace(/^#kzs=~[^&]*/, (m) => m)), 'the share field holds the same link');
    const damaged = await browser.open('/#kzs=~AAAA');
    assert.match(await damaged.page.getByTestId('error').textContent(), /damaged|format/);
  });
});
