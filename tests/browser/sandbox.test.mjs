// The sandbox through the contract's hooks (../../../shared/design/ui-contract.md):
// every built-in scenario, stepping, scrubbing, the keyboard, branching,
// a broker's buttons, permalinks, and a hostile scenario that must stay text.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TIMEOUT_MS, base64url, builtIns, runToEnd, start, stepOf, waitEnd, waitStep } from './harness.mjs';

// A small cluster story (seed 003's failover), independent of which
// built-ins exist yet: the controller dies, its session expires, another
// broker takes over.
const CLUSTER = `# failover
cluster brokers=3
start all
topic create t assignment=0:1,2;1:2,0
run 1s
expect partition t-0 leader == 1
kill broker 0
run 20s
expect controller in [1, 2]
`;
const CLUSTER_ADDRESS = `/#kzs=${base64url(CLUSTER)}`;

let browser;

before(async () => {
  browser = await start();
});

after(async () => {
  await browser?.close();
});

function assertClean({ page, problems, foreign, dialogs }) {
  return (async () => {
    assert.equal(await page.getByTestId('kzsim-panic').count(), 0, 'the app panicked');
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign ?? [], [], 'the page fetched from another origin');
    assert.deepEqual(dialogs ?? [], [], 'a dialog opened');
  })();
}

describe('every built-in scenario', () => {
  for (const { name, text } of builtIns()) {
    test(`${name}: loads, steps, steps back, runs to the end with every expect green`, async () => {
      const opened = await browser.open(`/?scenario=${name}`);
      const { page } = opened;
      assert.equal(await page.getByTestId('error').count(), 0, `${name} shows an error`);
      assert.equal(await stepOf(page), 0);
      assert.equal(await page.getByTestId('scenario-picker').inputValue(), name);
      await page.getByTestId('step-forward').click();
      await waitStep(page, 1);
      assert.equal(await page.getByTestId('event').count(), 1);
      await page.getByTestId('step-forward').click();
      await waitStep(page, 2);
      await page.getByTestId('step-back').click();
      await waitStep(page, 1);
      await runToEnd(page);
      const end = await stepOf(page);
      assert.ok(end > 2, `${name} ends after ${end} steps`);
      assert.equal(await page.getByTestId('timeline').getAttribute('max'), String(end));
      assert.equal(await page.getByTestId('error').count(), 0, `${name} ends with an error`);
      const expects = text.split('\n').filter((l) => l.trim().startsWith('expect ')).length;
      assert.equal(await page.locator('[data-testid="checkpoint"][data-status="passed"]').count(), expects);
      await page.waitForURL(new RegExp(`scenario=${name}&step=${end}`), { timeout: TIMEOUT_MS });
      await page.getByTestId('reset').click();
      await waitStep(page, 0);
      await assertClean(opened);
      await page.close();
    });
  }
});

test('the contract hooks of a cluster: brokers, controller, partitions, znodes', async () => {
  const opened = await browser.open(`${CLUSTER_ADDRESS}&step=0`);
  const { page } = opened;
  assert.equal(await page.getByTestId('broker').count(), 3);
  for (const card of await page.getByTestId('broker').all()) {
    assert.equal(await card.getAttribute('data-state'), 'stopped');
  }
  await runToEnd(page);
  // Broker 0 was killed; the controller moved on.
  assert.equal(await page.locator('[data-testid="broker"][data-broker-id="0"]').getAttribute('data-state'), 'stopped');
  const controllers = page.locator('[data-testid="broker"][data-controller="true"]');
  assert.equal(await controllers.count(), 1);
  assert.match(await controllers.getAttribute('data-broker-id'), /^[12]$/);
  const t0 = page.locator('[data-testid="partition"][data-tp="t-0"]');
  assert.equal(await t0.getAttribute('data-leader'), '1');
  assert.equal(await t0.getAttribute('data-isr'), '1,2');
  assert.match(await t0.getAttribute('data-leader-epoch'), /^\d+$/);
  assert.equal(await page.locator('[data-testid="partition"][data-tp="t-1"]').getAttribute('data-isr'), '2');
  // Znodes: the controller is ephemeral, broker 0's registration is gone.
  const tree = page.getByTestId('znode-tree');
  assert.equal(await tree.locator('[data-znode-path="/controller"]').getAttribute('data-ephemeral'), 'true');
  assert.equal(await tree.locator('[data-znode-path="/brokers/ids/0"]').count(), 0);
  assert.equal(await tree.locator('[data-znode-path="/brokers/ids/1"]').getAttribute('data-ephemeral'), 'true');
  assert.equal(await tree.locator('[data-znode-path="/controller_epoch"]').getAttribute('data-ephemeral'), null);
  // Selecting a row shows its data and full stat.
  await tree.locator('[data-znode-path="/controller_epoch"]').click();
  const detail = page.getByTestId('znode-detail');
  assert.match(await detail.textContent(), /\/controller_epoch/);
  assert.equal((await page.getByTestId('znode-data').textContent()).trim(), '2');
  for (const field of ['czxid', 'mzxid', 'pzxid', 'ctime', 'mtime', 'version', 'cversion', 'aversion', 'ephemeralOwner', 'dataLength', 'numChildren']) {
    assert.match(await page.getByTestId('znode-stat').textContent(), new RegExp(field));
  }
  // The clock shows virtual time, the event log every step so far.
  assert.match(await page.getByTestId('clock').textContent(), /^2\d\.\d{3} s$/);
  assert.equal(await page.getByTestId('event-log').getByTestId('event').count(), await stepOf(page));
  await assertClean(opened);
  await page.close();
});

test('a log of thousands of steps is a virtual list: the current step in view, every step a scroll away', async () => {
  const long = 'cluster brokers=5\nstart all\ntopic create big partitions=300 replication-factor=3\nrun 10s\nkill broker 0\nrun 30s\n';
  const opened = await browser.open(`/#kzs=${base64url(long)}`);
  const { page } = opened;
  await runToEnd(page);
  const end = await stepOf(page);
  assert.ok(end > 2000, `${end} steps`);
  await page.getByTestId('timeline').fill('2000');
  await waitStep(page, 2000);
  const log = page.getByTestId('event-log');
  assert.match(await log.getAttribute('class'), /kz-events-virtual/);
  // Only the rows near the view are in the page, the current one among them, in view.
  assert.ok((await log.locator('.kz-event').count()) < 100);
  // The log follows the current step while it is on screen (out of view
  // it does not scroll, and catches up when it comes into view).
  await log.scrollIntoViewIfNeeded();
  const inView = (step) =>
    page
      .waitForFunction(
        (step) => {
          const list = document.querySelector('[data-testid="event-log"]').getBoundingClientRect();
          const row = document.querySelector(`.kz-event[data-step="${step}"]`)?.getBoundingClientRect();
          return !!row && row.top >= list.top && row.bottom <= list.bottom;
        },
        step,
        { timeout: TIMEOUT_MS },
      )
      .then(() => true, () => false);
  assert.ok(await inView(2000), 'the current step is in view');
  // → follows: two hundred steps on, the current step is still in view.
  await page.getByTestId('timeline').fill('2200');
  await waitStep(page, 2200);
  await page.getByTestId('step-forward').click();
  await waitStep(page, 2201);
  assert.ok(await inView(2201), 'the log followed the step');
  // Scrolled to the top, the first step is there; clicking it goes to it.
  await log.evaluate((l) => (l.scrollTop = 0));
  await page.locator('[data-testid="event"][data-step="1"]').click();
  await waitStep(page, 1);
  // At its first steps the log of a long run holds every step so far, as
  // the UI contract's `event-log` promises: it is a virtual list only once
  // the entries shown pass a thousand.
  assert.doesNotMatch(await log.getAttribute('class'), /kz-events-virtual/);
  assert.equal(await log.getByTestId('event').count(), 1);
  await assertClean(opened);
  await page.close();
});

test('a tree of thousands of znodes is a virtual list: few rows in the page, every znode a scroll away', async () => {
  const wide = 'cluster brokers=3\nstart all\ntopic create wide partitions=600 replication-factor=1\nrun 2s\n';
  const opened = await browser.open(`/#kzs=${base64url(wide)}`);
  const { page } = opened;
  await runToEnd(page);
  const tree = page.getByTestId('znode-tree');
  // All 600 partitions and their state znodes (past the cap of 200
  // children a parent): a virtual list of some 1,200 rows.
  // Scrolls the tree down until `row` is drawn.
  const scrollTo = async (row) => {
    for (let i = 0; i < 60 && (await row.count()) === 0; i++) {
      await tree.evaluate((t) => (t.scrollTop += t.clientHeight * 2));
      await page.waitForTimeout(50);
    }
  };
  const more = tree.getByTestId('znode-more');
  await scrollTo(more);
  await more.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="znode-tree"]').classList.contains('kz-tree-virtual'), null, { timeout: TIMEOUT_MS });
  assert.ok((await tree.locator('.kz-znode').count()) < 150, 'only the rows near the view are in the page');
  // The last partition in path order ("99") is a scroll away, and selectable.
  const last = '/brokers/topics/wide/partitions/99/state';
  const row = tree.locator(`[data-znode-path="${last}"]`);
  assert.equal(await row.count(), 0);
  await scrollTo(row);
  await row.click();
  await page.waitForFunction(
    (last) => document.querySelector('[data-testid="znode-detail"]').textContent.includes(last),
    last,
    { timeout: TIMEOUT_MS },
  );
  assert.match(await page.getByTestId('znode-detail').textContent(), /"leader"/);
  await assertClean(opened);
  await page.close();
});

test('past 500 partitions the rows come in pages: a filter finds any partition, "Show more" adds a page', async () => {
  const wide = 'cluster brokers=3\nstart all\ntopic create wide partitions=600 replication-factor=2\nrun 2s\n';
  const opened = await browser.open(`/#kzs=${base64url(wide)}`);
  const { page } = opened;
  await runToEnd(page);
  const rows = page.getByTestId('partition');
  const count = page.getByTestId('partition-count');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="partition"]').length > 0, null, { timeout: TIMEOUT_MS });
  const first = await rows.count();
  assert.ok(first >= 10 && first < 100, `one page of rows, not all 600: ${first}`);
  assert.match(await count.textContent(), new RegExp(`${first}\\D+600\\D+600`));
  await page.getByTestId('partitions-more').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="partition"]').length === 2 * n, first, { timeout: TIMEOUT_MS });
  // The filter finds a partition far past the pages drawn, with its hooks.
  await page.getByTestId('partition-filter').fill('wide-599');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="partition"]').length === 1, null, { timeout: TIMEOUT_MS });
  const found = rows.first();
  assert.equal(await found.getAttribute('data-tp'), 'wide-599');
  assert.match(await found.getAttribute('data-leader'), /^[0-2]$/);
  assert.equal((await found.getAttribute('data-isr')).split(',').length, 2);
  assert.match(await count.textContent(), /1\D+1\D+600/);
  await assertClean(opened);
  await page.close();
});

test('scrubbing the timeline moves to any step so far, and the address follows', async () => {
  const opened = await browser.open(CLUSTER_ADDRESS);
  const { page } = opened;
  await runToEnd(page);
  const end = await stepOf(page);
  const timeline = page.getByTestId('timeline');
  for (const n of [5, Math.floor(end / 2), 1, end - 1]) {
    await timeline.fill(String(n));
    await waitStep(page, n);
    assert.equal(await page.getByTestId('event').count(), n);
    await page.waitForFunction((n) => location.hash.includes(`step=${n}`), n);
  }
  assert.equal(await timeline.getAttribute('max'), String(end), 'scrubbing back keeps every step known');
  // Clicking an event in the log goes to it.
  await page.locator('[data-testid="event"][data-step="3"]').click();
  await waitStep(page, 3);
  await assertClean(opened);
  await page.close();
});

test('keyboard: → ← Space Home End, and ? for help; not while typing', async () => {
  const opened = await browser.open('/?scenario=zk-basics');
  const { page } = opened;
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await waitStep(page, 3);
  await page.keyboard.press('ArrowLeft');
  await waitStep(page, 2);
  await page.keyboard.press('End');
  await waitEnd(page);
  const end = await stepOf(page);
  await page.keyboard.press('Home');
  await waitStep(page, 0);
  // Space plays, Space pauses.
  await page.keyboard.press('Space');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="step-counter"]').textContent) >= 2, null, { timeout: TIMEOUT_MS });
  await page.keyboard.press('Space');
  const paused = await stepOf(page);
  await page.waitForTimeout(400);
  assert.equal(await stepOf(page), paused, 'Space paused the play');
  assert.ok(paused <= end);
  // ? shows the shortcuts; Escape hides them.
  await page.keyboard.press('?');
  await page.getByTestId('help').waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('help').count(), 0);
  // Typing in the console is typing, not stepping.
  await page.getByTestId('console-input').click();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.type('x y');
  assert.equal(await stepOf(page), paused);
  // The play button too, and focus on a button does not double Space.
  await page.getByTestId('step-forward').focus();
  await page.keyboard.press('Space');
  await page.waitForTimeout(50);
  assert.equal(await page.getByTestId('play-pause').getAttribute('aria-pressed'), 'true');
  await page.getByTestId('play-pause').click();
  assert.equal(await page.getByTestId('play-pause').getAttribute('aria-pressed'), 'false');
  await assertClean(opened);
  await page.close();
});

test("kill a broker from its card: it stops at once, and its session expires later", async () => {
  const opened = await browser.open(`${CLUSTER_ADDRESS}&step=0`);
  const { page } = opened;
  // Let the cluster start: step until broker 2 runs.
  const card = (id) => page.locator(`[data-testid="broker"][data-broker-id="${id}"]`);
  while ((await card(2).getAttribute('data-state')) !== 'running') await page.getByTestId('step-forward').click();
  const before = await stepOf(page);
  await card(2).getByRole('button', { name: /^kill broker 2$/i }).click();
  // The kill is taken at once (after the records of the event in hand).
  await page.locator('[data-testid="broker"][data-broker-id="2"][data-state="stopped"]').waitFor({ timeout: TIMEOUT_MS });
  assert.ok((await stepOf(page)) > before);
  assert.match(await page.getByTestId('step-summary').textContent(), /broker 2 stopped: killed/);
  await page.waitForURL(/do=\d+\./, { timeout: TIMEOUT_MS }); // the action is in the permalink
  // Its card offers to start it again.
  await card(2).getByRole('button', { name: /^start broker 2$/i }).waitFor();
  await assertClean(opened);
  await page.close();
});

test('branch: step back, act, and the future changes (and the permalink reproduces it)', async () => {
  const opened = await browser.open(CLUSTER_ADDRESS);
  const { page } = opened;
  await runToEnd(page);
  const card = (id) => page.locator(`[data-testid="broker"][data-broker-id="${id}"]`);
  assert.equal(await card(1).getAttribute('data-state'), 'running');
  // Back to just before the script kills broker 0: all three run.
  const k = Number(await page.getByTestId('event').filter({ hasText: 'broker 0 stopped' }).first().getAttribute('data-step'));
  await page.getByTestId('timeline').fill(String(k - 1));
  await waitStep(page, k - 1);
  assert.ok((await page.locator('[data-future="true"]').count()) > 0, 'the known future shows, dimmed');
  await card(1).getByRole('button', { name: /^kill broker 1$/i }).click();
  await page.locator('[data-testid="broker"][data-broker-id="1"][data-state="stopped"]').waitFor({ timeout: TIMEOUT_MS });
  const k2 = await stepOf(page);
  assert.ok(k2 >= k);
  assert.equal(await page.getByTestId('timeline').getAttribute('max'), String(k2), 'the old future is gone');
  assert.equal(await page.locator('[data-future="true"]').count(), 0);
  await runToEnd(page);
  assert.equal(await card(1).getAttribute('data-state'), 'stopped', 'the new future has broker 1 dead');
  assert.notEqual(await page.locator('[data-testid="partition"][data-tp="t-0"]').getAttribute('data-leader'), '1');
  // The permalink carries the branch.
  await page.waitForURL(new RegExp(`step=${await stepOf(page)}`), { timeout: TIMEOUT_MS });
  const link = page.url();
  const state = async (p) => [
    await stepOf(p),
    await p.locator('[data-testid="broker"][data-broker-id="1"]').getAttribute('data-state'),
    await p.locator('[data-testid="partition"][data-tp="t-0"]').getAttribute('data-isr'),
  ];
  const expected = await state(page);
  const again = await browser.open(link.slice(browser.base.length));
  assert.deepEqual(await state(again.page), expected);
  await again.page.close();
  await assertClean(opened);
  await page.close();
});

test('a permalink with &step=N opens the state that N presses of → reach', async () => {
  const N = 45;
  const stepped = await browser.open(CLUSTER_ADDRESS);
  await stepped.page.locator('body').click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < N; i++) await stepped.page.keyboard.press('ArrowRight');
  await waitStep(stepped.page, N);
  const linked = await browser.open(`${CLUSTER_ADDRESS}&step=${N}`);
  await waitStep(linked.page, N);
  const snapshot = async (page) => ({
    step: await page.getByTestId('step-counter').textContent(),
    clock: await page.getByTestId('clock').textContent(),
    states: await page.getByTestId('broker').evaluateAll((cards) => cards.map((c) => [c.dataset.brokerId, c.dataset.state, c.dataset.controller ?? ''])),
    znodes: await page.locator('[data-znode-path]').evaluateAll((rows) => rows.map((r) => r.dataset.znodePath)),
    events: await page.getByTestId('event').count(),
  });
  assert.deepEqual(await snapshot(linked.page), await snapshot(stepped.page));
  // The built-in form of the address too.
  const builtIn = await browser.open('/?scenario=zk-basics&step=7');
  assert.equal(await stepOf(builtIn.page), 7);
  assert.equal(await builtIn.page.getByTestId('event').count(), 7);
  for (const o of [stepped, linked, builtIn]) {
    await assertClean(o);
    await o.page.close();
  }
});

test('a hostile scenario: znode data that looks like HTML is shown as text and never runs', async () => {
  const payload = '<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2</script>';
  const text = `zk-session a\nzk a create /evil ${JSON.stringify(payload)}\nzk a create /evil/${'x'.repeat(3)} ${JSON.stringify('<b>bold</b>')}\n`;
  const opened = await browser.open(`/#kzs=${base64url(text)}&step=3`);
  const { page } = opened;
  assert.equal(await page.getByTestId('error').count(), 0);
  const row = page.locator('[data-znode-path="/evil"]');
  await row.click();
  assert.equal((await page.getByTestId('znode-data').textContent()).trim(), payload);
  assert.match(await row.textContent(), /<img src=x/);
  await page.waitForTimeout(300);
  assert.equal(await page.locator('img[src="x"]').count(), 0, 'an img element was created');
  assert.equal(await page.locator('.kz-app script').count(), 0);
  assert.equal(await page.locator('.kz-app b').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'the payload ran');
  assert.deepEqual(opened.dialogs, [], 'a dialog opened');
  // The tree's data preview shows it as text too.
  assert.match(await page.locator('[data-znode-path="/evil/xxx"]').textContent(), /<b>bold<\/b>/);
  await assertClean(opened);
  await page.close();
});

test('the console takes any action line; errors show inline', async () => {
  const opened = await browser.open('/?scenario=zk-basics&step=4');
  const { page } = opened;
  const input = page.getByTestId('console-input');
  await input.fill('frobnicate now');
  await input.press('Enter');
  await page.getByTestId('console-error').waitFor();
  assert.equal(await stepOf(page), 4);
  await input.fill('zk admin create /from-console hello');
  await page.getByTestId('console-send').click();
  await waitStep(page, 5);
  assert.equal(await page.getByTestId('console-error').count(), 0);
  await page.locator('[data-znode-path="/from-console"]').click();
  assert.equal((await page.getByTestId('znode-data').textContent()).trim(), 'hello');
  await assertClean(opened);
  await page.close();
});

test('the editor loads a scenario into the address; its errors point at the line', async () => {
  const opened = await browser.open('/?scenario=zk-basics');
  const { page } = opened;
  const editor = page.getByTestId('editor');
  await editor.fill('zk-session a\nzk a create /mine 1\nzk a bogus /x\n');
  await page.getByTestId('editor-load').click();
  await page.getByTestId('error').waitFor();
  assert.match(await page.getByTestId('error').textContent(), /^#kzs:3:/);
  assert.equal(await page.locator('.kz-gutter .kz-bad-line').textContent(), '3');
  await editor.fill('zk-session a\nzk a create /mine 1\n');
  await page.getByTestId('editor-load').click();
  await page.getByTestId('step-forward').click();
  await page.getByTestId('step-forward').click();
  await waitStep(page, 2);
  assert.equal(await page.getByTestId('error').count(), 0);
  await page.locator('[data-znode-path="/mine"]').waitFor();
  await page.waitForFunction(() => location.hash.startsWith('#kzs=') && location.hash.includes('step=2'));
  await assertClean(opened);
  await page.close();
});

test('embed=1 is compact and lang=zh speaks Chinese', async () => {
  const opened = await browser.open('/?scenario=zk-basics&embed=1&lang=zh&step=2', { viewport: { width: 700, height: 700 } });
  const { page } = opened;
  assert.equal(await stepOf(page), 2);
  assert.equal(await page.locator('.kz-app.kz-embed').count(), 1);
  assert.equal(await page.getByTestId('editor').isVisible(), false);
  assert.equal(await page.getByTestId('step-forward').getAttribute('aria-label'), '前进一步');
  await page.getByTestId('step-forward').click();
  await waitStep(page, 3);
  assert.match(page.url(), /embed=1/);
  assert.match(page.url(), /lang=zh/);
  // Every control has an accessible name.
  const unnamed = await page.locator('button, select, input, textarea').evaluateAll((els) =>
    els.filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.labels?.length)).map((e) => e.outerHTML),
  );
  assert.deepEqual(unnamed, []);
  await assertClean(opened);
  await page.close();
});

test('the admin forms build a checked line and act: a new topic gets its partitions and leaders', async () => {
  const opened = await browser.open(`${CLUSTER_ADDRESS}&step=0`);
  const { page } = opened;
  const card = (id) => page.locator(`[data-testid="broker"][data-broker-id="${id}"]`);
  while ((await card(2).getAttribute('data-state')) !== 'running') await page.getByTestId('step-forward').click();
  await page.getByTestId('form-kind').selectOption({ label: 'create topic' });
  const form = page.locator('.kz-forms');
  await form.getByLabel('name', { exact: true }).fill('learn');
  await form.getByLabel('partitions', { exact: true }).fill('x');
  assert.equal(await page.getByTestId('form-send').isDisabled(), true, 'a bad number is refused as typed');
  await form.getByLabel('partitions', { exact: true }).fill('2');
  assert.equal(await page.getByTestId('form-line').textContent(), 'topic create learn partitions=2 replication-factor=2');
  await page.getByTestId('form-send').click();
  await page.locator('[data-znode-path="/brokers/topics/learn"]').waitFor({ timeout: TIMEOUT_MS });
  await runToEnd(page);
  for (const tp of ['learn-0', 'learn-1']) {
    const leader = await page.locator(`[data-testid="partition"][data-tp="${tp}"]`).getAttribute('data-leader');
    assert.match(leader, /^[12]$/, `${tp} has a live leader`);
  }
  await assertClean(opened);
  await page.close();
});
