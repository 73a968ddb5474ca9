// Guided tours (docs/tours.md): every built-in tour walked to its end, its
// highlights pointing at something on the page; predictions answered right
// and wrong; leaving the narrated path (an action of one's own, a seek) and
// coming back; `&tour=1`; the Chinese tour.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, TIMEOUT_MS, start, stepOf, waitStep } from './harness.mjs';

/** The built-in tours: static/scenarios/*.tour.json, by scenario name. */
const TOURS = fs
  .readdirSync(path.join(ROOT, 'static/scenarios'))
  .filter((f) => f.endsWith('.tour.json'))
  .sort()
  .map((f) => ({ name: f.slice(0, -'.tour.json'.length), tour: JSON.parse(fs.readFileSync(path.join(ROOT, 'static/scenarios', f), 'utf8')) }));

let browser;

before(async () => {
  browser = await start();
});

after(async () => {
  await browser?.close();
});

async function assertClean({ page, problems, foreign, dialogs }) {
  assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign ?? [], [], 'the page fetched from another origin');
  assert.deepEqual(dialogs ?? [], [], 'a dialog opened');
}

/** Waits until the card shows beat `k` (0-based), arrived and on the path. */
async function waitBeat(page, k) {
  await page.locator(`[data-testid="tour-beat"][data-beat="${k}"]`).waitFor({ timeout: TIMEOUT_MS });
}

/** The selector of the highlight rule the card wrote, or null. */
async function highlighted(page) {
  const style = page.getByTestId('tour-highlight');
  if ((await style.count()) === 0) return null;
  return (await style.textContent()).split(' {')[0].trim();
}

/** Starts the tour of the page's scenario and waits for its first beat. */
async function startTour(page) {
  await page.getByTestId('tour-start').click();
  await page.getByTestId('tour').waitFor({ timeout: TIMEOUT_MS });
  await waitBeat(page, 0);
}

/** Presses Next until beat `k` is on show. */
async function nextTo(page, k) {
  for (;;) {
    const at = Number(await page.getByTestId('tour-beat').getAttribute('data-beat'));
    if (at === k) return;
    await page.getByTestId('tour-next').click();
    await waitBeat(page, at + 1);
  }
}

for (const { name, tour } of TOURS) {
  test(`${name}: the tour walks to its end, each beat at its line, each highlight on the page`, async () => {
    const opened = await browser.open(`/?scenario=${name}`);
    const { page } = opened;
    await startTour(page);
    assert.ok((await page.getByTestId('tour').textContent()).includes(tour.title.en), 'the card shows the title');
    let last = -1;
    for (let k = 0; k < tour.beats.length; k++) {
      const beat = tour.beats[k];
      await waitBeat(page, k);
      const card = page.getByTestId('tour-beat');
      assert.equal(await card.getAttribute('data-line'), String(beat.line));
      assert.match(await page.getByTestId('tour-progress').textContent(), new RegExp(`beat ${k + 1} of ${tour.beats.length}`));
      assert.equal(await page.locator('[data-testid="tour-source"][translate="no"]').textContent(), beat.source);
      const step = await stepOf(page);
      assert.ok(step >= last, `beat ${k} at step ${step}, after ${last}`);
      last = step;
      if (beat.highlight) {
        const selector = await highlighted(page);
        assert.ok(selector, `beat ${k} highlights nothing`);
        assert.ok((await page.locator(selector).count()) >= 1, `beat ${k}: ${selector} is not on the page`);
        if (beat.highlight.znode) {
          // A deep znode is scrolled into view inside the tree.
          await page.waitForFunction(
            (sel) => {
              const e = document.querySelector(sel);
              const tree = e?.closest('.kz-tree');
              if (!tree) return false;
              const [a, b] = [e.getBoundingClientRect(), tree.getBoundingClientRect()];
              return a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
            },
            selector,
            { timeout: TIMEOUT_MS },
          );
        }
      }
      assert.equal((await page.getByTestId('tour-question').count()) > 0, Boolean(beat.question), `beat ${k}: its question`);
      await page.getByTestId('tour-next').click();
    }
    await page.getByTestId('tour-done').waitFor({ timeout: TIMEOUT_MS });
    assert.equal(await page.getByTestId('tour-highlight').count(), 0);
    assert.doesNotMatch(page.url(), /do=/, 'a tour takes no actions of its own');
    // Previous from the end returns to the last beat, at the step it was reached.
    await page.getByTestId('tour-prev').click();
    await waitBeat(page, tour.beats.length - 1);
    await waitStep(page, last);
    await page.getByTestId('tour-exit').click();
    assert.equal(await page.getByTestId('tour').count(), 0);
    await page.getByTestId('tour-start').waitFor();
    await assertClean(opened);
    await page.close();
  });
}

test('predict, then step: the answer steps on, then the verdict says right or wrong, and why', async () => {
  const { tour } = TOURS.find((t) => t.name === 'zk-basics');
  const asks = tour.beats.map((b, k) => [b, k]).filter(([b]) => b.question);
  assert.ok(asks.length >= 2);
  const opened = await browser.open('/?scenario=zk-basics');
  const { page } = opened;
  await startTour(page);
  // The first question, answered right.
  const [first, k1] = asks[0];
  await nextTo(page, k1);
  assert.match(await page.getByTestId('tour-question').textContent(), /NodeChildrenChanged/);
  const before = await stepOf(page);
  await page.locator(`[data-testid="tour-choice"][data-index="${first.answer}"]`).click();
  await waitBeat(page, k1 + 1);
  assert.ok((await stepOf(page)) > before, 'answering steps the simulation');
  const verdict = page.getByTestId('tour-verdict');
  assert.equal(await verdict.getAttribute('data-correct'), 'true');
  assert.ok((await verdict.textContent()).includes(first.why.en.split('`').join('')));
  // The next question, answered wrong: the verdict names the right answer.
  const [second, k2] = asks[1];
  await nextTo(page, k2);
  assert.equal(await page.getByTestId('tour-verdict').count(), 0, 'the verdict goes with its beat');
  const wrong = (second.answer + 1) % second.choices.length;
  await page.locator(`[data-testid="tour-choice"][data-index="${wrong}"]`).click();
  await waitBeat(page, k2 + 1);
  assert.equal(await page.getByTestId('tour-verdict').getAttribute('data-correct'), 'false');
  assert.ok((await page.getByTestId('tour-verdict').textContent()).includes(second.choices[second.answer].en.split('`').join('')));
  await assertClean(opened);
  await page.close();
});

test('leaving the narrated path and coming back: an action of my own, then a seek', async () => {
  const { tour } = TOURS.find((t) => t.name === 'controller-failover');
  const k = tour.beats.findIndex((b) => b.line === 22);
  assert.ok(k > 0);
  const opened = await browser.open('/?scenario=controller-failover');
  const { page } = opened;
  await startTour(page);
  await nextTo(page, k);
  const mark = await stepOf(page);
  const card = (id) => page.locator(`[data-testid="broker"][data-broker-id="${id}"]`);
  assert.equal(await card(1).getAttribute('data-state'), 'running');
  // Kill broker 1, which the script never does.
  await card(1).locator('[data-action="kill"]').click();
  await page.locator('[data-testid="broker"][data-broker-id="1"][data-state="stopped"]').waitFor({ timeout: TIMEOUT_MS });
  await page.getByTestId('tour-off-path').waitFor({ timeout: TIMEOUT_MS });
  assert.equal(await page.getByTestId('tour-beat').count(), 0);
  assert.equal(await page.getByTestId('tour-highlight').count(), 0, 'no highlight off the path');
  await page.waitForURL(/do=\d+\./, { timeout: TIMEOUT_MS });
  // Back to the tour: the beat again, at its step, without the action.
  await page.getByTestId('tour-rejoin').click();
  await waitBeat(page, k);
  await waitStep(page, mark);
  assert.equal(await card(1).getAttribute('data-state'), 'running');
  await page.waitForFunction(() => !location.href.includes('do='), null, { timeout: TIMEOUT_MS });
  assert.equal(await page.getByTestId('tour-off-path').count(), 0);
  // Seeking away (Home: step 0) leaves the path too; Back returns.
  await page.getByTestId('reset').click();
  await waitStep(page, 0);
  await page.getByTestId('tour-off-path').waitFor({ timeout: TIMEOUT_MS });
  await page.getByTestId('tour-rejoin').click();
  await waitBeat(page, k);
  await waitStep(page, mark);
  // And the tour goes on from there.
  await page.getByTestId('tour-next').click();
  await waitBeat(page, k + 1);
  await assertClean(opened);
  await page.close();
});

test('&tour=1 opens the tour at its start; in Chinese, the tour speaks Chinese', async () => {
  const opened = await browser.open('/?scenario=isr-shrink&lang=zh&tour=1');
  const { page } = opened;
  await page.getByTestId('tour').waitFor({ timeout: TIMEOUT_MS });
  await waitBeat(page, 0);
  const text = await page.getByTestId('tour-beat').textContent();
  assert.match(text, /[\u4e00-\u9fff]/, 'the beat is in Chinese');
  assert.match(await page.getByTestId('tour-progress').textContent(), /第 1 段/);
  assert.ok((await page.locator('[data-testid="tour-beat"] code[translate="no"]').count()) > 0, 'identifiers are code, not translated');
  assert.equal(await page.getByTestId('tour-next').textContent(), '下一段');
  await assertClean(opened);
  await page.close();
});

test('a scenario without a tour offers none', async () => {
  const opened = await browser.open(`/#kzs=${Buffer.from('zk-session a\nzk a create /x 1\n').toString('base64url')}`);
  const { page } = opened;
  await page.getByTestId('step-counter').waitFor();
  assert.equal(await page.getByTestId('tour-start').count(), 0);
  assert.equal(await page.getByTestId('tour').count(), 0);
  await assertClean(opened);
  await page.close();
});
