// Where the page's time goes, for whoever makes it faster (issue 9). Not a
// test: it measures and prints, in Debian's headless Chromium on a built app
// (KZ_DIST, default dist/). Every figure is the main thread's CPU time
// (Chromium's thread clock) unless it says wall.
//
//   node profile.mjs steps    [--address=A] [--to-end] [--n=40] [--callers=NAME]
//        CPU profile of n → steps (self time by function; build with names
//        kept to see wasm functions: wasm-bindgen --keep-debug and
//        wasm-opt -g), then Chromium's trace events by name; with
//        --callers, who calls the functions whose names contain NAME
//   node profile.mjs panels   [--address=A] [--to-end] [--n=30] [--seek=S1,S2]
//        a step's CPU time with each panel hidden in turn (or a seek's:
//        from the first step to S1, S1 to S2, …)
//   node profile.mjs mutations [--address=A] [--to-end] [--seek=S1,S2]
//        what five → steps (or seeks to S1, S2, …) change in the page
//   node profile.mjs seeks    [--address=A] [--profile] [--seek=S1,S2]
//        each of perf.mjs's first twenty seeks, after "run to the end", wall;
//        with --profile, then a CPU profile and trace of the twenty again
//   node profile.mjs fast-forward [--address=A]
//        CPU profile and trace of "run to the end", from the click to the
//        end badge
//
// --address defaults to the small built-in (`/?scenario=controller-failover&step=100`);
// --big is perf.mjs's 50 brokers × 10,000 partitions. --to-end runs to the
// end first and measures from 400 steps before it, as perf.mjs does.

import { base64url, quantile, seekTargets, start } from './harness.mjs';

const [mode = 'steps', ...rest] = process.argv.slice(2);
const args = new Map(
  rest.map((a) => {
    const s = a.replace(/^--/, '');
    const i = s.indexOf('=');
    return i < 0 ? [s, '1'] : [s.slice(0, i), s.slice(i + 1)];
  }),
);
const BIG = 'cluster brokers=50\nstart all\ntopic create big partitions=10000 replication-factor=3\nrun 10s\nkill broker 0\nrun 60s\n';
const address = args.get('address') ?? (args.has('big') ? `/#kzs=${base64url(BIG)}` : '/?scenario=controller-failover&step=100');
const N = Number(args.get('n') ?? 40);

const browser = await start({ width: 1280, height: 900 });
const page = await browser.context.newPage();
await page.goto(`${browser.base}${address}`);
await page.getByTestId('step-forward').waitFor({ timeout: 600_000 });

/** In the page: `act`, then resolve after the frame that follows the step counter's change. */
await page.evaluate(`window.__kzAfter = (act) => new Promise((resolve) => {
  const counter = document.querySelector('[data-testid="step-counter"]');
  const before = counter.textContent;
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (counter.textContent === before) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
  });
  observer.observe(counter, { childList: true, characterData: true, subtree: true });
  act();
});
window.__kzStep = () => window.__kzAfter(() => { performance.mark('kz-step'); document.querySelector('[data-testid="step-forward"]').click(); });
window.__kzSeek = (n) => document.querySelector('[data-testid="step-counter"]').textContent.trim() === String(n) ? Promise.resolve(0) : window.__kzAfter(() => {
  const slider = document.querySelector('[data-testid="timeline"]');
  slider.value = String(n);
  slider.dispatchEvent(new Event('input', { bubbles: true }));
});`);
const step = () => page.evaluate(() => window.__kzStep());
const seek = (n) => page.evaluate((n) => window.__kzSeek(n), n);

/** Presses "run to the end" and waits for the end badge (a big cluster's
 * run can take minutes on a slow build: the harness's `runToEnd` waits 60 s). */
async function runToEnd(polling) {
  await page.getByTestId('to-end').click();
  await page.waitForFunction(() => document.querySelector('.kz-end-badge'), null, { timeout: 1_800_000, polling });
}

let steps = null;
if (args.has('to-end') || mode === 'seeks') {
  await runToEnd(500);
  steps = Number(await page.getByTestId('step-counter').textContent());
  if (mode !== 'seeks') await seek(Math.max(1, steps - 400));
}
const from = Number(await page.getByTestId('step-counter').textContent());
const cdp = await page.context().newCDPSession(page);

/** Runs `body` under Chromium's trace; resolves to its events. */
async function traced(categories, body) {
  const events = [];
  const collect = (d) => events.push(...d.value);
  cdp.on('Tracing.dataCollected', collect);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  await body();
  await page.evaluate(() => performance.mark('kz-step'));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return events;
}

/** The main thread's events (the thread the `kz-step` marks are on). */
const mainThread = (events) => {
  const mark = events.find((e) => e.name === 'kz-step');
  return mark ? events.filter((e) => e.pid === mark.pid && e.tid === mark.tid) : [];
};
const cpu = (e) => (e.tdur ?? e.dur ?? 0) / 1000;
const ms = (x) => `${x.toFixed(1)} ms`;

/** p50 / p95 of the main thread's CPU time per → step, `n` steps from
 * `from`; or per seek, to each of --seek's steps in turn. */
async function stepCpu(n) {
  const seeks = args.get('seek')?.split(',').map(Number);
  await seek(from);
  const events = mainThread(await traced('toplevel,blink.user_timing', async () => {
    if (seeks) {
      for (const to of seeks) {
        await page.evaluate(() => performance.mark('kz-step'));
        await seek(to);
      }
    } else {
      for (let i = 0; i < n; i++) await step();
    }
  }));
  const marks = events.filter((e) => e.name === 'kz-step').map((e) => e.ts).sort((a, b) => a - b);
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask');
  const per = marks.slice(1).map((to, i) => tasks.filter((t) => t.ts >= marks[i] && t.ts < to).reduce((s, t) => s + cpu(t), 0));
  return `p50 ${ms(quantile(per, 0.5))}, p95 ${ms(quantile(per, 0.95))}`;
}

/** Runs `body` under the sampling profiler and Chromium's trace; prints
 * self time by function and trace events by name, each per one of `n`. */
async function profiled(what, n, body) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const events = mainThread(await traced('devtools.timeline,toplevel,blink,blink.user_timing', body));
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = f.functionName || `(${f.url.split('/').pop()})`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  console.log(`--- self time per ${what} (wall, sampled)`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(v / n).toFixed(2).padStart(7)} ms  ${k.slice(0, 140)}`);
  if (args.has('callers')) {
    // --callers=NAME: who calls the functions named so, by their self time
    // (three frames up).
    const parent = new Map();
    for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
    const named = (id) => byId.get(id)?.callFrame.functionName || '?';
    const callers = new Map();
    profile.samples.forEach((id, i) => {
      if (!named(id).includes(args.get('callers'))) return;
      const chain = [];
      for (let p = parent.get(id); p !== undefined && chain.length < 3; p = parent.get(p)) chain.push(named(p).slice(0, 70));
      const key = chain.join(' < ');
      callers.set(key, (callers.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    console.log(`--- callers of ${args.get('callers')} per ${what}`);
    for (const [k, v] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(v / n).toFixed(2).padStart(7)} ms  ${k}`);
  }
  const byName = new Map();
  for (const e of events.filter((e) => e.ph === 'X')) byName.set(e.name, (byName.get(e.name) ?? 0) + cpu(e));
  console.log(`--- trace events per ${what} (CPU, inclusive)`);
  for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(v / n).toFixed(2).padStart(7)} ms  ${k}`);
}

/** perf.mjs's first twenty seeks over `steps` steps, in its order (or --seek's). */
function perfSeeks() {
  if (args.has('seek')) return args.get('seek').split(',').map(Number);
  return seekTargets(steps, 20);
}

if (mode === 'steps') {
  for (let i = 0; i < 5; i++) await step();
  await profiled(`step, ${N} steps from step ${from}`, N, async () => {
    for (let i = 0; i < N; i++) await step();
  });
} else if (mode === 'panels') {
  const panels = {
    none: null,
    tree: '[data-testid="znode-tree"]',
    brokers: '.kz-col-brokers > .kz-panel:first-child',
    explanation: '[data-testid="explanation"]',
    partitions: '.kz-col-parts > .kz-panel:first-child',
    beliefs: '[data-testid="beliefs"]',
    sequence: '.kz-seq',
    events: '.kz-log',
    tools: '.kz-tools',
  };
  console.log(`--- CPU per ${args.has('seek') ? `seek (from ${from} to ${args.get('seek')})` : `→ step (${N} steps from step ${from} each)`} with one panel hidden`);
  for (const [name, selector] of Object.entries(panels)) {
    await page.evaluate((selector) => {
      document.getElementById('kz-profile-hide')?.remove();
      if (!selector) return;
      const style = document.createElement('style');
      style.id = 'kz-profile-hide';
      style.textContent = `${selector} { display: none !important }`;
      document.head.append(style);
    }, selector);
    console.log(`${name.padEnd(12)} ${await stepCpu(N)}`);
  }
} else if (mode === 'mutations') {
  const seeks = args.get('seek')?.split(',').map(Number) ?? null;
  const counts = await page.evaluate(async (seeks) => {
    const where = (node) => {
      const parts = [];
      for (let e = node.nodeType === 1 ? node : node.parentElement, i = 0; e && i < 3; i++, e = e.parentElement) {
        const cls = typeof e.className === 'string' && e.className ? `.${e.className.split(' ')[0]}` : '';
        parts.unshift(`${e.tagName.toLowerCase()}${cls}${e.dataset?.testid ? `[${e.dataset.testid}]` : ''}`);
      }
      return parts.join('>');
    };
    const counts = new Map();
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        const key = `${r.type}${r.attributeName ? `:${r.attributeName}` : ''} ${where(r.target)}`;
        counts.set(key, (counts.get(key) ?? 0) + (r.type === 'childList' ? r.addedNodes.length + r.removedNodes.length : 1));
      }
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const s of seeks ?? [null, null, null, null, null]) await (s === null ? window.__kzStep() : window.__kzSeek(s));
    observer.disconnect();
    return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 40);
  }, seeks);
  console.log(`--- nodes and attributes changed by ${seeks ? `seeks to ${seeks.join(', ')}` : 'five → steps'}`);
  for (const [k, v] of counts) console.log(`${String(v).padStart(7)}  ${k}`);
} else if (mode === 'seeks') {
  console.log(`--- ${args.has('seek') ? 'seeks' : "perf.mjs's twenty seeks"} over ${steps} steps (wall, to the frame after the counter changed)`);
  for (const to of perfSeeks()) console.log(`seek to ${String(to).padStart(6)}: ${ms(await seek(to))}`);
  if (args.has('profile')) {
    await seek(1);
    await profiled('seek (the same again)', perfSeeks().length, async () => {
      for (const to of perfSeeks()) await seek(to);
    });
  }
} else if (mode === 'fast-forward') {
  const t0 = Date.now();
  await profiled('run to the end', 1, () => runToEnd(100));
  console.log(`${await page.getByTestId('step-counter').textContent()} steps in ${Date.now() - t0} ms (wall, profiled)`);
} else {
  console.error(`unknown mode ${mode}: steps, panels, mutations, seeks or fast-forward`);
  process.exitCode = 2;
}
await browser.close();
