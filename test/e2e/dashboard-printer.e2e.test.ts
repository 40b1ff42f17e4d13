// End-to-end in Debian's Chromium: on the Overview, a merchant picks their printer from PrusaSlicer's library
// (vendor, then printer and nozzle) and sees only the print settings and filaments compatible with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { dashboardHost, DIST, type DashboardHost } from './dashboard-serve.ts';
import { assertAccessible, chromiumMissing, CHROMIUM, launch, loggedInPage, shoot } from './dashboard-browser.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium"`
  : false;

let server: TestServer;
let host: DashboardHost;
let browser: Browser;

before(async () => {
  if (skip) return;
  if (!existsSync(path.join(DIST, 'index.html')))
    execFileSync('npm', ['run', '--silent', 'build:dashboard'], { cwd: ROOT, stdio: 'inherit' });
  server = await startTestServer();
  host = await dashboardHost(server.url);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await host?.close();
  await server?.stop();
});

test('Your printer: Prusa Research → MK3S 0.4 mm lists its own prints and Prusament PLA', {
  skip,
  timeout: 180_000,
}, async () => {
  const account = await server.newAccount();
  const page = await loggedInPage(browser, host.origin, account);
  const picker = page.getByTestId('printer-picker');
  await picker.getByLabel('Vendor').selectOption({ label: 'Prusa Research' });
  await picker
    .getByLabel('Printer and nozzle')
    .selectOption({ label: 'Original Prusa i3 MK3S & MK3S+ (0.4 mm nozzle)' });
  const presets = page.getByTestId('printer-presets');
  await presets.getByLabel('0.20mm QUALITY @MK3').check();
  await presets.getByLabel('Prusament PLA', { exact: true }).check();
  assert.equal(await presets.getByLabel('0.20mm QUALITY @MINI').count(), 0, 'a MINI print is not offered');
  assert.match(await presets.innerText(), /Print settings \(1 of \d+ chosen\)/);
  await assertAccessible(page, 'overview with the printer picker');
  await shoot(page, 'printer-picker');
  // Used for quotes: the shop's default printer is now the vendor's, with the vendor's names.
  await picker.getByRole('button', { name: 'Use this printer for my quotes' }).click();
  const imported = page.getByTestId('printer-imported');
  await imported.waitFor();
  await shoot(page, 'printer-imported', true);
  assert.match(
    await imported.innerText(),
    /default printer is now Original Prusa i3 MK3S & MK3S\+ — 0\.20mm QUALITY @MK3/,
  );
  const printers = await server.client(account.token).get('/v2/profiles/printer');
  const own = printers.body.data.find(
    (p: { scope: string; is_default: boolean }) => p.is_default && p.scope === 'account',
  );
  assert.equal(own?.name, 'Original Prusa i3 MK3S & MK3S+ — 0.20mm QUALITY @MK3');
});
