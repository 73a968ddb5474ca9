// Writes the screenshots under docs/screenshots/: each panel at 1280 px and
// at 700 px, and the whole page (light and dark). Not a test (node --test
// does not pick it up): run it after `trunk build --release` when the look
// changes, and commit the pictures.
//
//   (cd tests/browser && node screenshots.mjs)

import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runToEnd, start } from './harness.mjs';

const OUT = path.join(ROOT, 'docs/screenshots');
fs.mkdirSync(OUT, { recursive: true });

// (file stem, locator of the panel)
const PANELS = [
  ['controls', '.kz-sticky'],
  ['znodes', '.kz-zk'],
  ['brokers', '.kz-brokers'],
  ['explanation', '[data-testid="explanation"]'],
  ['partitions', '.kz-partitions'],
  ['beliefs', '[data-testid="beliefs"]'],
  ['checkpoints', '.kz-checks'],
  ['sequence', '.kz-seq'],
  ['event-log', '.kz-log'],
  ['console', '.kz-console'],
  ['editor', '.kz-editor'],
];

const browser = await start();
try {
  for (const width of [1280, 700]) {
    // controller-failover after the new controller took over.
    const { page } = await browser.open('/?scenario=controller-failover', { viewport: { width, height: 900 } });
    await runToEnd(page);
    // Scrub back to a step where caches still disagree, if there is one
    // (that is what the beliefs panel is for).
    const end = Number(await page.getByTestId('step-counter').textContent());
    for (let n = Math.floor(end * 0.6); n < end; n += 3) {
      await page.getByTestId('timeline').fill(String(n));
      if ((await page.locator('.kz-row-differs').count()) > 0) break;
    }
    // Pictures with the sticky controls where they start, covering nothing.
    await page.addStyleTag({ content: '.kz-sticky { position: static !important; }' });
    await page.locator('[data-znode-path="/controller"]').click();
    await page.waitForTimeout(1300); // let the change highlights fade in
    for (const [stem, selector] of PANELS) {
      const panel = page.locator(selector).first();
      if ((await panel.count()) === 0) continue;
      await panel.screenshot({ path: path.join(OUT, `${stem}-${width}.png`), animations: 'disabled' });
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUT, `page-${width}.png`), fullPage: true, animations: 'disabled' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(OUT, `page-dark-${width}.png`), fullPage: false, animations: 'disabled' });
    // The same step in Chinese (the address keeps the place: lang=zh added).
    const zh = await browser.open(`${new URL(page.url()).search}&lang=zh`.replace(/^/, '/'), { viewport: { width, height: 900 } });
    await zh.page.addStyleTag({ content: '.kz-sticky { position: static !important; }' });
    await zh.page.locator('[data-znode-path="/controller"]').click();
    await zh.page.screenshot({ path: path.join(OUT, `page-zh-${width}.png`), fullPage: false, animations: 'disabled' });
    await zh.page.close();
    await page.close();
  }
  console.log(`wrote ${fs.readdirSync(OUT).length} screenshots to ${path.relative(ROOT, OUT)}/`);
} finally {
  await browser.close();
}
