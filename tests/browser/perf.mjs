// The browser performance figures of issue 9, measured in Debian's headless
// Chromium on the built app (dist/):
//
//   first render   from navigation to the first interactive render of `/`
//   step render    one → step on a 50-broker cluster with a P-partition topic,
//                  from the click to the next frame (p50 and p95 of 40 steps)
//   step work      the same steps' work on the page's main thread (Chromium's
//                  trace: its tasks from one click to the next, so without
//                  the wait for the next frame): what a frame's 16 ms must
//                  hold; in wall time, and by the thread's own CPU clock
//   fresh step     the same steps taken for the first time: a permalink to
//                  the first of them opened, then → (each step simulated,
//                  described and added to the event log)
//   seek           the slider moved to random steps of that timeline, and of
//                  its first 10,000 steps (p50, p95, max of 100;
//                  20 in --quick mode)
//   fast-forward   "run to the end" of that scenario (every step simulated)
//   memory         the wasm linear memory once the whole timeline is known,
//                  and in a page opened at step 10,000 (the target's case)
//
//   node perf.mjs                 full run (P = 10,000) and records the
//                                 figures in docs/performance.md
//   node perf.mjs --quick         CI: P = 1,000; fails only on a large
//                                 regression relative to a baseline measured
//                                 in the same run (the small built-in
//                                 scenario's step render), never on an
//                                 absolute time
//   node perf.mjs --partitions=N  another size, nothing recorded

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CHROMIUM, ROOT, TIMEOUT_MS, base64url, quantile, seekTargets, start, waitStep } from './harness.mjs';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? '1']));
const QUICK = args.has('quick');
const PARTITIONS = Number(args.get('partitions') ?? (QUICK ? 1000 : 10000));
const RECORD = !QUICK && !args.has('partitions');
/** In --quick mode a step on the big cluster may cost at most this many times a step of the small built-in. */
const MAX_RATIO = 60;
/** Seeks per figure: enough that the p95 is not the largest of them (CI's quick mode takes fewer). */
const SEEKS = QUICK ? 20 : 100;

const scenario = (p) => `# perf: 50 brokers, one topic of ${p} partitions (RF 3), the controller killed
cluster brokers=50
start all
topic create big partitions=${p} replication-factor=3
run 10s
kill broker 0
run 60s
`;

const ms = (x) => `${x.toFixed(1)} ms`;

/** Records when the app first shows its controls, and keeps the wasm exports. */
const INIT = () => {
  window.__kz = { rendered: null, longTasks: [] };
  addEventListener('TrunkApplicationStarted', (e) => (window.__kz.wasm = e.detail.wasm));
  // Chromium's long tasks (50 ms or more on the main thread): how long the
  // page could not answer a click or draw a frame.
  new PerformanceObserver((list) => {
    for (const t of list.getEntries()) window.__kz.longTasks.push({ start: t.startTime, duration: t.duration });
  }).observe({ type: 'longtask', buffered: true });
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="step-forward"]')) {
      window.__kz.rendered = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
};

/** In the page: runs `act`, resolves with the ms until the frame after the counter changed. */
const TIMED = `window.__kzTimed = (act) => new Promise((resolve) => {
  const counter = document.querySelector('[data-testid="step-counter"]');
  const before = counter.textContent;
  const t0 = performance.now();
  const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
  const observer = new MutationObserver(() => {
    if (counter.textContent !== before) { observer.disconnect(); done(); }
  });
  observer.observe(counter, { childList: true, characterData: true, subtree: true });
  act();
  setTimeout(() => { observer.disconnect(); resolve(NaN); }, 20000);
});`;

async function openApp(browser, address) {
  const page = await browser.context.newPage();
  await page.addInitScript(INIT);
  await page.goto(`${browser.base}${address}`);
  await page.getByTestId('step-forward').waitFor({ timeout: 600_000 });
  await page.evaluate(TIMED);
  return page;
}

/** The long tasks since `since` (the page's clock): how many, and the longest (0 if none). */
async function longTasks(page, since = 0) {
  const tasks = await page.evaluate((since) => window.__kz.longTasks.filter((t) => t.start >= since), since);
  return { count: tasks.length, longest: Math.max(0, ...tasks.map((t) => t.duration)) };
}

async function firstRender(browser) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const page = await openApp(browser, '/');
    times.push(await page.evaluate(() => window.__kz.rendered));
    await page.close();
  }
  return quantile(times, 0.5);
}

/** p50/p95 of `n` → steps from where the page stands. */
async function stepRender(page, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    times.push(await page.evaluate(() => window.__kzTimed(() => document.querySelector('[data-testid="step-forward"]').click())));
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

/**
 * The main-thread work of `n` → steps from where the page stands: Chromium's
 * trace of the renderer's tasks (`ThreadControllerImpl::RunTask`) between a
 * mark before each click and the next, clipped to that window. The render
 * figure above also counts the wait for the next frame (up to 16.7 ms at
 * 60 Hz) however little the step costs; this is the step's own cost.
 */
async function stepWork(page, n) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const done = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'toplevel,blink.user_timing', transferMode: 'ReportEvents' });
  for (let i = 0; i < n; i++) {
    await page.evaluate(() =>
      window.__kzTimed(() => {
        performance.mark('kz-step');
        document.querySelector('[data-testid="step-forward"]').click();
      }),
    );
  }
  await page.evaluate(() => performance.mark('kz-step'));
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  const marks = events.filter((e) => e.name === 'kz-step').sort((a, b) => a.ts - b.ts);
  if (marks.length < 2) return { p50: NaN, p95: NaN };
  const { pid, tid } = marks[0];
  const tasks = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask');
  const [work, cpu] = [[], []];
  for (let i = 0; i + 1 < marks.length; i++) {
    const [from, to] = [marks[i].ts, marks[i + 1].ts];
    const us = tasks.reduce((sum, t) => sum + Math.max(0, Math.min(to, t.ts + t.dur) - Math.max(from, t.ts)), 0);
    work.push(us / 1000);
    // The thread's own clock: the same tasks without the time the thread
    // waited for a core (this machine's two are shared with the browser's
    // other processes and whatever else runs).
    cpu.push(tasks.filter((t) => t.ts >= from && t.ts < to).reduce((sum, t) => sum + (t.tdur ?? t.dur), 0) / 1000);
  }
  return { p50: quantile(work, 0.5), p95: quantile(work, 0.95), cpuP50: quantile(cpu, 0.5), cpuP95: quantile(cpu, 0.95) };
}

async function main() {
  const browser = await start({ width: 1280, height: 900 });
  try {
    const figures = {};
    figures.firstRender = await firstRender(browser);
    console.log(`first render: ${ms(figures.firstRender)} (median of 5)`);

    // The baseline of this run: stepping the small built-in scenario.
    const small = await openApp(browser, '/?scenario=controller-failover&step=100');
    figures.smallStep = await stepRender(small, 40);
    console.log(`step render, controller-failover: p50 ${ms(figures.smallStep.p50)}, p95 ${ms(figures.smallStep.p95)}`);
    if (!QUICK) {
      figures.smallWork = await stepWork(small, 40);
      console.log(`step work on the main thread, controller-failover: p50 ${ms(figures.smallWork.p50)}, p95 ${ms(figures.smallWork.p95)} (CPU ${ms(figures.smallWork.cpuP50)}, ${ms(figures.smallWork.cpuP95)})`);
    }
    await small.close();

    const big = await openApp(browser, `/#kzs=${base64url(scenario(PARTITIONS))}`);
    const t0 = Date.now();
    const clicked = await big.evaluate(() => performance.now());
    await big.getByTestId('to-end').click();
    await big.waitForFunction(() => document.querySelector('.kz-end-badge'), null, { timeout: 1_800_000, polling: 500 });
    figures.fastForward = Date.now() - t0;
    figures.runLongTasks = await longTasks(big, clicked);
    console.log(`run to the end: ${figures.runLongTasks.count} long tasks, the longest ${ms(figures.runLongTasks.longest)}`);
    figures.steps = Number(await big.getByTestId('step-counter').textContent());
    figures.memoryMB = (await big.evaluate(() => window.__kz.wasm?.memory?.buffer.byteLength ?? NaN)) / 2 ** 20;
    console.log(`fast-forward of ${figures.steps} steps (${PARTITIONS} partitions): ${(figures.fastForward / 1000).toFixed(2)} s; wasm memory ${figures.memoryMB.toFixed(0)} MB`);

    // The target's own case: a timeline of 10,000 steps, in a page of its
    // own (a permalink to step 10,000: the page simulates the steps up to it
    // and keeps their keyframes), its wasm memory read once it shows the step.
    if (!QUICK && figures.steps >= 10000) {
      const tenK = await openApp(browser, `/#kzs=${base64url(scenario(PARTITIONS))}&step=10000`);
      await waitStep(tenK, 10000, TIMEOUT_MS * 10);
      figures.memory10kMB = (await tenK.evaluate(() => window.__kz.wasm?.memory?.buffer.byteLength ?? NaN)) / 2 ** 20;
      console.log(`wasm memory with a 10,000-step timeline (${PARTITIONS} partitions): ${figures.memory10kMB.toFixed(0)} MB`);
      await tenK.close();
    }

    // Step render on the big cluster, 400 steps before the end: the cluster
    // after the failover (fetch rounds, HW checkpoints, ISR expiry; steps
    // that move the clock and every broker's session countdown). The
    // failover's own steps, from step 60,000, at one instant, cost less
    // (tenth session: 7.7-8.4 ms p50, 9.7-10.4 ms p95 of work).
    const from = Math.max(1, figures.steps - 400);
    figures.fromStep = from;
    await big.evaluate((n) => {
      const slider = document.querySelector('[data-testid="timeline"]');
      slider.value = String(n);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }, from);
    await waitStep(big, from, TIMEOUT_MS * 10);
    figures.bigStep = await stepRender(big, 40);
    console.log(`step render, ${PARTITIONS} partitions: p50 ${ms(figures.bigStep.p50)}, p95 ${ms(figures.bigStep.p95)}`);
    if (!QUICK) {
      figures.bigWork = await stepWork(big, 40);
      console.log(`step work on the main thread, ${PARTITIONS} partitions: p50 ${ms(figures.bigWork.p50)}, p95 ${ms(figures.bigWork.p95)} (CPU ${ms(figures.bigWork.cpuP50)}, ${ms(figures.bigWork.cpuP95)})`);
    }

    // Steps taken for the first time, at the end of the known timeline (a
    // permalink to step S opened, then → by hand, or played): each one is
    // simulated, described and added to the event log. Same steps as above.
    // The page draws first and reaches the address's step chunk by chunk:
    // how long it froze on the way is the far permalink's figure.
    const fresh = await openApp(browser, `/#kzs=${base64url(scenario(PARTITIONS))}&step=${from}`);
    await waitStep(fresh, from, TIMEOUT_MS * 10);
    // After the first drawing: the task that loads the page and draws it
    // first (wasm instantiation and all) is the first render's figure.
    figures.openLongTasks = await longTasks(fresh, await fresh.evaluate(() => window.__kz.rendered));
    console.log(`a permalink to step ${from}: ${figures.openLongTasks.count} long tasks after the first drawing, the longest ${ms(figures.openLongTasks.longest)}`);
    figures.freshStep = await stepRender(fresh, 40);
    console.log(`step render, ${PARTITIONS} partitions, first time through: p50 ${ms(figures.freshStep.p50)}, p95 ${ms(figures.freshStep.p95)}`);
    await fresh.close();

    // Seeks to random steps of the whole timeline, then of its first 10,000
    // steps (the target's "any of 10,000 steps": the topic's creation and
    // the brokers' first fetches are in them); fixed sequences, the same
    // steps each run.
    figures.seek = await seeks(big, figures.steps);
    console.log(`seek: p50 ${ms(figures.seek.p50)}, p95 ${ms(figures.seek.p95)}, max ${ms(figures.seek.max)}`);
    figures.seek10k = await seeks(big, Math.min(10000, figures.steps));
    console.log(`seek within the first 10,000 steps: p50 ${ms(figures.seek10k.p50)}, p95 ${ms(figures.seek10k.p95)}, max ${ms(figures.seek10k.max)}`);
    await big.close();

    if (QUICK) {
      for (const [what, step] of [['a step', figures.bigStep], ['a step taken for the first time', figures.freshStep]]) {
        const ratio = step.p95 / Math.max(figures.smallStep.p95, 1);
        console.log(`regression check: ${what} on the big cluster / a small step, p95 = ${ratio.toFixed(1)}× (fails above ${MAX_RATIO}×)`);
        if (!(ratio <= MAX_RATIO)) {
          console.error(`${what} on ${PARTITIONS} partitions costs ${ratio.toFixed(1)}× a step of the small scenario`);
          process.exitCode = 1;
        }
      }
    }
    if (RECORD) record(figures);
  } finally {
    await browser.close();
  }
}

/** SEEKS seeks by the slider to steps 1..`within` (a fixed sequence): p50, p95, max. */
async function seeks(page, within) {
  const times = [];
  for (const to of seekTargets(within, SEEKS)) {
    times.push(
      await page.evaluate(
        (to) =>
          window.__kzTimed(() => {
            const slider = document.querySelector('[data-testid="timeline"]');
            slider.value = String(to);
            slider.dispatchEvent(new Event('input', { bubbles: true }));
          }),
        to,
      ),
    );
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: Math.max(...times) };
}

function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'Chromium';
  }
}

/** Writes the figures between the markers of docs/performance.md. */
function record(f) {
  const file = path.join(ROOT, 'docs/performance.md');
  const [begin, end] = ['<!-- browser-perf:begin -->', '<!-- browser-perf:end -->'];
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(begin) || !text.includes(end)) throw new Error(`${file} has no ${begin} … ${end} block`);
  const rows = [
    `Measured by \`node tests/browser/perf.mjs\` (${chromiumVersion()}, headless; 2-core machine; one run, ${new Date().toISOString().slice(0, 10)}):`,
    '',
    '| figure | target | measured |',
    '|---|---|---|',
    `| first interactive render of \`/\` (median of 5) | ≤ 300 ms | ${ms(f.firstRender)} |`,
    `| one step, controller-failover: click to next frame (p50 / p95) | — | ${ms(f.smallStep.p50)} / ${ms(f.smallStep.p95)} |`,
    `| the same steps' main-thread work (p50 / p95) | — | ${ms(f.smallWork.p50)} / ${ms(f.smallWork.p95)} |`,
    `| … of which the thread ran (its CPU clock, p50 / p95) | — | ${ms(f.smallWork.cpuP50)} / ${ms(f.smallWork.cpuP95)} |`,
    `| one step, 50 brokers × ${PARTITIONS.toLocaleString('en')} partitions: click to next frame (p50 / p95) | ≤ 16 ms p95 | ${ms(f.bigStep.p50)} / ${ms(f.bigStep.p95)} |`,
    `| the same steps' main-thread work, without the wait for the frame (p50 / p95) | ≤ 16 ms p95 | ${ms(f.bigWork.p50)} / ${ms(f.bigWork.p95)} |`,
    `| … of which the thread ran (its CPU clock, p50 / p95) | ≤ 16 ms p95 | ${ms(f.bigWork.cpuP50)} / ${ms(f.bigWork.cpuP95)} |`,
    `| the same steps taken for the first time (a permalink to the first opened, then →): click to next frame (p50 / p95) | ≤ 16 ms p95 | ${ms(f.freshStep.p50)} / ${ms(f.freshStep.p95)} |`,
    `| seek to a random step of ${f.steps.toLocaleString('en')} (p50 / p95 / max of ${SEEKS}) | ≤ 100 ms | ${ms(f.seek.p50)} / ${ms(f.seek.p95)} / ${ms(f.seek.max)} |`,
    `| seek to a random step of the first 10,000 (p50 / p95 / max of ${SEEKS}) | ≤ 100 ms | ${ms(f.seek10k.p50)} / ${ms(f.seek10k.p95)} / ${ms(f.seek10k.max)} |`,
    `| run to the end: ${f.steps.toLocaleString('en')} steps simulated in the page | — | ${(f.fastForward / 1000).toFixed(2)} s |`,
    `| … the page's longest task meanwhile (Chromium's long tasks: how many, the longest) | the page never freezes | ${f.runLongTasks.count}, ${ms(f.runLongTasks.longest)} |`,
    `| a permalink to step ${f.fromStep.toLocaleString('en')} opened: long tasks after its first drawing until it stands there (how many, the longest) | the page never freezes | ${f.openLongTasks.count}, ${ms(f.openLongTasks.longest)} |`,
    `| wasm memory with a 10,000-step timeline (a page opened at step 10,000) | ≤ 100 MB | ${f.memory10kMB?.toFixed(0) ?? '—'} MB |`,
    `| wasm memory with the whole ${f.steps.toLocaleString('en')}-step timeline | — | ${f.memoryMB.toFixed(0)} MB (${((f.memoryMB * 10000) / f.steps).toFixed(0)} MB per 10,000 steps on average) |`,
  ];
  fs.writeFileSync(file, text.replace(new RegExp(`${begin}[\\s\\S]*${end}`), `${begin}\n${rows.join('\n')}\n${end}`));
  console.log(`recorded in ${file}`);
}

await main();
