// Chinese and English (issue #7): every built-in scenario, stepped into and
// run to its end, with the help overlay open and a znode selected, must show
// no English in Chinese and no Chinese in English, outside what the page
// marks `translate="no"` (znode paths and data, stats, Kafka method names,
// config keys, session ids, scenario text, the trace's English original).
// Also: `&lang=` works, the header's switch keeps the step, and with no
// `&lang=` the page follows the browser's language.
//
//   cd tests/browser && KZ_DIST=/tmp/dist-i18n node --test i18n.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { CHROMIUM, TIMEOUT_MS, builtIns, runToEnd, start, stepOf, waitStep } from './harness.mjs';

// Words that may stay in Latin letters on the Chinese page (compared
// lower-cased). The same list is `i18n::prose::ALLOWED` in the web crate.
//  - Kafka's own terms, which Chinese writing on Kafka keeps as they are
//    (see the seed articles): Kafka, ZooKeeper, broker, controller, leader,
//    follower, znode, session, watch, epoch, czxid;
//  - ZooKeeper's operations as zkCli and the trace name them (create, delete,
//    set, get, ls, stat, multi, exists) and the scenario language's `zk`;
//  - units (ms, s, m, h) and keys printed on a keyboard (Home, End).
// Beyond these, a word is fine when it is not plain English: an acronym
// (ISR, LEO, JSON), camelCase (NodeExists, zkVersion) or holding digits or
// punctuation (broker-1, retention.ms, /brokers/ids, --trace).
const ALLOWED = new Set(
  'kafka zookeeper broker controller leader follower znode session watch epoch czxid create delete set get ls stat multi exists zk ms s m h home end'.split(
    ' ',
  ),
);

/** A word of letters only, not an acronym, not camelCase. */
const plain = (w) => /^[A-Za-z]+$/.test(w) && !/^[A-Z]+$/.test(w) && !/^.[a-z]*[A-Z]/.test(w);

/** English words in text meant to be Chinese. */
function englishWords(text) {
  return text
    .split(/[\s\u0080-\uffff]+/)
    .map((w) => w.replace(/^[(\[{'"`]+/, '').replace(/[)\]},.;:!?'"`]+$/, ''))
    .filter((w) => plain(w) && !ALLOWED.has(w.toLowerCase()));
}

/** Runs of three or more plain words (a sentence, not an identifier): for
 * attributes, which cannot mark the identifiers inside them. */
function englishPhrases(text) {
  const out = [];
  let run = [];
  for (const w of [...text.split(/\s+/), '']) {
    if (plain(w) && !ALLOWED.has(w.toLowerCase())) run.push(w);
    else {
      if (run.length >= 3) out.push(run.join(' '));
      run = [];
    }
  }
  return out;
}

const CJK = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;

/** The page's visible text nodes and its title / aria-label / placeholder
 * attributes, outside `translate="no"`. */
async function pageText(page) {
  return page.evaluate(() => {
    const translated = (el) => el.closest('[translate]')?.getAttribute('translate') !== 'no';
    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = n.textContent.trim();
      if (!text || !el || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName) || !translated(el)) continue;
      const shown = el.tagName === 'OPTION' || el.closest('svg') || el.checkVisibility({ visibilityProperty: true });
      if (shown) texts.push(text);
    }
    const attrs = [];
    for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder]')) {
      if (!translated(el)) continue;
      for (const a of ['title', 'aria-label', 'placeholder']) if (el.getAttribute(a)) attrs.push(el.getAttribute(a));
    }
    return { texts, attrs };
  });
}

/** What is in the wrong language on the page now, labelled with `where`. */
async function wrongLanguage(page, lang, where) {
  const { texts, attrs } = await pageText(page);
  const bad = [];
  for (const t of texts) {
    const found = lang === 'zh' ? englishWords(t) : CJK.test(t) ? [t] : [];
    if (found.length) bad.push(`${where}: text ${JSON.stringify(t.slice(0, 160))}: ${found.join(', ')}`);
  }
  for (const a of attrs) {
    const found = lang === 'zh' ? englishPhrases(a) : CJK.test(a) ? [a] : [];
    if (found.length) bad.push(`${where}: attribute ${JSON.stringify(a.slice(0, 160))}: ${found.join(', ')}`);
  }
  return bad;
}

let browser;

before(async () => {
  browser = await start();
});

after(async () => {
  await browser?.close();
});

test('the checks themselves: English prose is found, identifiers and allowed terms are not', () => {
  assert.deepEqual(englishWords('broker 1 的 session 已过期'), []);
  assert.deepEqual(englishWords('get /controller（并设置 watch）→ NoNode（节点不存在）'), []);
  assert.deepEqual(englishWords('kafkaScheduler.startup：retention.ms 设为 100，ISR [0, 1]'), []);
  assert.deepEqual(englishWords('broker 1 stopped: killed'), ['stopped', 'killed']);
  assert.deepEqual(englishPhrases('kill broker 1'), []);
  assert.deepEqual(englishPhrases('the script has ended'), ['the script has ended']);
  assert.ok(CJK.test('前进一步') && !CJK.test('Step forward → 2'));
});

for (const lang of ['zh', 'en']) {
  test(`every built-in scenario speaks only ${lang === 'zh' ? 'Chinese' : 'English'} (lang=${lang})`, async () => {
    const bad = [];
    for (const { name } of builtIns()) {
      const { page, problems } = await browser.open(`/?scenario=${name}&lang=${lang}`);
      assert.equal(await page.evaluate(() => document.documentElement.lang), lang === 'zh' ? 'zh-CN' : 'en');
      bad.push(...(await wrongLanguage(page, lang, `${name} at step 0`)));
      for (let i = 1; i <= 4; i++) {
        await page.getByTestId('step-forward').click();
        await waitStep(page, i);
      }
      bad.push(...(await wrongLanguage(page, lang, `${name} at step 4`)));
      if (lang === 'zh') {
        // The step's summary is Chinese, with the English original on hover.
        const original = await page.locator('[data-testid="step-summary"] .kz-tr').getAttribute('title');
        assert.ok(original && !CJK.test(original), `${name}: the English original is on hover`);
      }
      await runToEnd(page);
      bad.push(...(await wrongLanguage(page, lang, `${name} at its end`)));
      // The help overlay.
      await page.locator('body').press('?');
      await page.getByTestId('help').waitFor();
      bad.push(...(await wrongLanguage(page, lang, `${name}, help overlay`)));
      await page.locator('body').press('Escape');
      await page.getByTestId('help').waitFor({ state: 'detached' });
      // A selected znode: its data and stat.
      const znode = page.locator('[data-znode-path]').last();
      await znode.click();
      await page.getByTestId('znode-stat').waitFor();
      bad.push(...(await wrongLanguage(page, lang, `${name}, znode ${await znode.getAttribute('data-znode-path')} selected`)));
      if (name === 'controller-failover') {
        // A learner's action from a broker card, and a console line that does
        // not parse (the parser's message is English, marked translate="no").
        const kill = page.locator('[data-testid="broker"][data-state="running"] button[data-action="kill"]').first();
        if (await kill.count()) {
          await kill.click();
          await page.locator('.kz-taken').waitFor();
          bad.push(...(await wrongLanguage(page, lang, `${name}, after a kill`)));
        }
        await page.getByTestId('console-input').fill('frobnicate now');
        await page.getByTestId('console-check').waitFor();
        bad.push(...(await wrongLanguage(page, lang, `${name}, a console line that does not parse`)));
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
    assert.deepEqual(bad, []);
  });
}

test('&lang= picks the language, and the switch keeps the step', async () => {
  const { page, problems } = await browser.open('/?scenario=controller-failover&step=7&lang=en');
  assert.equal(await page.getByTestId('step-forward').getAttribute('aria-label'), 'Step forward');
  const zh = page.locator('[data-testid="lang-switch"] a[data-lang="zh"]');
  assert.equal(await zh.getAttribute('hreflang'), 'zh');
  assert.equal(await page.locator('[data-testid="lang-switch"] a[aria-current="true"]').getAttribute('data-lang'), 'en');
  await zh.click();
  await page.waitForURL(/lang=zh/, { timeout: TIMEOUT_MS });
  await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN', null, { timeout: TIMEOUT_MS });
  await waitStep(page, 7);
  assert.equal(await page.getByTestId('step-forward').getAttribute('aria-label'), '前进一步');
  await page.waitForURL(/lang=zh.*step=7|step=7.*lang=zh/, { timeout: TIMEOUT_MS });
  assert.equal(await page.locator('[data-testid="lang-switch"] a[aria-current="true"]').getAttribute('data-lang'), 'zh');
  assert.ok(CJK.test(await page.getByTestId('step-summary').textContent()), 'the summary is Chinese');
  // And back, one step further on.
  await page.getByTestId('step-forward').click();
  await waitStep(page, 8);
  await page.locator('[data-testid="lang-switch"] a[data-lang="en"]').click();
  await page.waitForURL(/lang=en/, { timeout: TIMEOUT_MS });
  await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
  await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: TIMEOUT_MS });
  await waitStep(page, 8);
  assert.equal(await stepOf(page), 8);
  assert.ok(!CJK.test(await page.getByTestId('step-summary').textContent()));
  assert.deepEqual(problems, []);
  await page.close();
});

test('with no &lang= the page follows the browser: zh-CN → Chinese, en-US → English', async () => {
  const other = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    for (const [locale, expected, label] of [
      ['zh-CN', 'zh-CN', '前进一步'],
      ['en-US', 'en', 'Step forward'],
    ]) {
      const context = await other.newContext({ locale });
      const page = await context.newPage();
      await page.goto(`${browser.base}/?scenario=zk-basics`);
      await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
      assert.equal(await page.evaluate(() => document.documentElement.lang), expected, locale);
      assert.equal(await page.getByTestId('step-forward').getAttribute('aria-label'), label, locale);
      // The address still wins over the browser.
      await page.goto(`${browser.base}/?scenario=zk-basics&lang=${expected === 'en' ? 'zh' : 'en'}`);
      await page.getByTestId('title').waitFor({ timeout: TIMEOUT_MS });
      assert.notEqual(await page.evaluate(() => document.documentElement.lang), expected, `${locale} with &lang=`);
      await context.close();
    }
  } finally {
    await other.close();
  }
});
